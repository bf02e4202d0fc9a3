// Layer list -> Sequential, with shapes checked layer by layer so errors name the layer.
#include "cli/model_builder.h"

#include <fmt/format.h>

#include "core/shape.h"
#include "layers/layer_catalog.h"
#include "optim/adam.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"

namespace strand::cli {
namespace {

std::string shape_text(const Shape& shape) { return fmt::format("({})", fmt::join(shape, ", ")); }

std::shared_ptr<Layer> make_layer(const LayerSpec& spec, const Shape& input) {
  const LayerType* type = find_layer_type(spec.type);
  if (type == nullptr) throw Error(fmt::format("unknown layer type '{}'", spec.type));
  return type->build(type->complete(spec.options), input);
}

}  // namespace

std::shared_ptr<Sequential> build_model(const std::vector<LayerSpec>& layers, int64_t length) {
  if (layers.empty()) throw ConfigError("model: the layer list is empty");
  auto model = std::make_shared<Sequential>();
  Shape shape = {length};
  for (size_t i = 0; i < layers.size(); ++i) {
    try {
      std::shared_ptr<Layer> layer = make_layer(layers[i], shape);
      shape = layer->output_shape(shape);
      model->add(layer);
    } catch (const Error& error) {
      throw ConfigError(fmt::format("model[{}] ({}): {} (input {})", i, layers[i].type,
                                    error.what(), shape_text(shape)));
    }
  }
  // The whole chain once more through Sequential's own check, which names the layer too.
  try {
    shape = model->output_shape({length});
  } catch (const Error& error) {
    throw ConfigError(fmt::format("model: {}", error.what()));
  }
  if (shape.size() != 1) {
    throw ConfigError(fmt::format(
        "model: the output per sample is {}, but must be (targets): end with Dense(units)",
        shape_text(shape)));
  }
  return model;
}

std::unique_ptr<Optimizer> build_optimizer(const OptimizerConfig& c, Sequential& model) {
  std::vector<Var> parameters = model.trainable_parameters();
  if (parameters.empty()) {
    throw ConfigError("freeze: every parameter is frozen; nothing would be trained");
  }
  if (c.name == "adam") {
    return std::make_unique<Adam>(parameters, AdamOptions{.learning_rate = c.learning_rate,
                                                          .beta1 = c.beta1,
                                                          .beta2 = c.beta2,
                                                          .eps = c.eps,
                                                          .weight_decay = c.weight_decay});
  }
  if (c.name == "sgd") {
    return std::make_unique<SGD>(parameters, SGDOptions{.learning_rate = c.learning_rate,
                                                        .momentum = c.momentum,
                                                        .dampening = c.dampening,
                                                        .weight_decay = c.weight_decay,
                                                        .nesterov = c.nesterov});
  }
  if (c.name == "rmsprop") {
    return std::make_unique<RMSprop>(parameters, RMSpropOptions{.learning_rate = c.learning_rate,
                                                                .alpha = c.alpha,
                                                                .eps = c.eps,
                                                                .weight_decay = c.weight_decay,
                                                                .momentum = c.momentum,
                                                                .centered = c.centered});
  }
  throw ConfigError(fmt::format("optimizer.name: unknown optimizer '{}'", c.name));
}

std::unique_ptr<Loss> build_loss(const std::string& name) {
  if (name == "binary_crossentropy") return std::make_unique<BinaryCrossEntropy>();
  if (name == "mse") return std::make_unique<MeanSquaredError>();
  throw ConfigError(fmt::format("loss: unknown loss '{}'", name));
}

void freeze_layers(Sequential& model, const std::vector<int64_t>& indices) {
  for (const int64_t index : indices) {
    if (index < 0 || index >= static_cast<int64_t>(model.size())) {
      throw ConfigError(fmt::format("freeze: layer index {} is not in the model (layers 0..{})",
                                    index, model.size() - 1));
    }
    model.layer(static_cast<size_t>(index))->set_trainable(false);
  }
}

}  // namespace strand::cli
