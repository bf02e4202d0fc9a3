// Model specs -> Sequential or Graph, with shapes checked layer by layer so errors name the
// layer; objectives from the outputs' losses and targets; optimizers.
#include "app/model_builder.h"

#include <fmt/format.h>

#include <map>

#include "core/parse_number.h"
#include "core/shape.h"
#include "layers/graph.h"
#include "layers/layer_catalog.h"
#include "optim/adam.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"

namespace strand::app {
namespace {

std::string shape_text(const Shape& shape) { return fmt::format("({})", fmt::join(shape, ", ")); }

// The layer of `spec` (data sizes resolved) for inputs of `inputs`, checked against them.
std::shared_ptr<Layer> make_layer(const LayerSpec& spec, const std::vector<Shape>& inputs,
                                  const DataDimensions& data, const std::string& path) {
  const LayerType* type = find_layer_type(spec.type);
  if (type == nullptr) throw Error(fmt::format("unknown layer type '{}'", spec.type));
  const LayerOptions options = type->complete(resolve_symbols(spec, data, path));
  std::shared_ptr<Layer> layer = type->build(options, inputs.at(0));
  layer->output_shape_of(inputs);  // throws when the inputs do not fit
  return layer;
}

// The per-sample shape a target has for `data`.
Shape target_shape(const std::string& target, const DataDimensions& data) {
  if (target == "profile") return {data.profile_tracks, data.profile_length};
  if (target == "log_counts") return {data.profile_tracks};
  if (target == "log_total_counts") return {1};
  return {data.tasks};
}

}  // namespace

DataDimensions data_dimensions(const data::SequenceSource& source) {
  DataDimensions data;
  data.length = source.length();
  data.tasks = source.num_targets();
  data.profile_tracks = source.profile_tracks();
  data.profile_length = source.profile_length();
  data.control_tracks = source.control_tracks();
  return data;
}

InputShapes input_shapes(const DataDimensions& data) {
  InputShapes shapes;
  shapes.sequence = {data.length};
  if (data.control_tracks > 0) shapes.tracks[kControlInput] = {data.control_tracks, data.length};
  return shapes;
}

std::shared_ptr<Sequential> build_sequential(const std::vector<LayerSpec>& layers,
                                             const DataDimensions& data) {
  if (layers.empty()) throw ConfigError("model: the layer list is empty");
  auto model = std::make_shared<Sequential>();
  Shape shape = {data.length};
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string path = fmt::format("model[{}]", i);
    try {
      std::shared_ptr<Layer> layer = make_layer(layers[i], {shape}, data, path);
      shape = layer->output_shape(shape);
      model->add(layer);
    } catch (const ConfigError&) {
      throw;
    } catch (const Error& error) {
      throw ConfigError(fmt::format("{} ({}): {} (input {})", path, layers[i].type, error.what(),
                                    shape_text(shape)));
    }
  }
  if (shape.size() != 1) {
    throw ConfigError(fmt::format(
        "model: the output per sample is {}, but must be (targets): end with Dense(units)",
        shape_text(shape)));
  }
  return model;
}

std::shared_ptr<Model> build_model(const ModelSpec& spec, const DataDimensions& data) {
  if (!spec.graph()) return build_sequential(spec.layers, data);
  auto graph = std::make_shared<Graph>();
  const InputShapes inputs = input_shapes(data);
  std::map<std::string, Shape> shapes;  // by node
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    const NodeSpec& node = spec.nodes[i];
    const std::string path = fmt::format("model.nodes[{}]", i);
    std::vector<Shape> in;
    try {
      for (const std::string& input : node.inputs) {
        auto known = shapes.find(input);
        in.push_back(known != shapes.end() ? known->second : inputs.get(input));
      }
      std::shared_ptr<Layer> layer = make_layer(node.layer, in, data, path);
      shapes[node.name] = layer->output_shape_of(in);
      graph->add_node(node.name, layer, node.inputs);
    } catch (const ConfigError&) {
      throw;
    } catch (const Error& error) {
      std::vector<std::string> texts;
      for (const Shape& shape : in) texts.push_back(shape_text(shape));
      throw ConfigError(fmt::format("{} '{}' ({}): {} (input {})", path, node.name, node.layer.type,
                                    error.what(), fmt::join(texts, ", ")));
    }
  }
  for (const OutputSpec& output : spec.outputs) graph->add_output(output.name, output.node);
  return graph;
}

std::shared_ptr<Loss> build_loss(const std::string& name) {
  if (name == "binary_crossentropy") return std::make_shared<BinaryCrossEntropy>();
  if (name == "mse") return std::make_shared<MeanSquaredError>();
  if (name == "poisson") return std::make_shared<PoissonNLL>();
  if (name == "categorical_crossentropy") return std::make_shared<CategoricalCrossEntropy>();
  if (name == "multinomial_nll") return std::make_shared<MultinomialNLL>();
  throw ConfigError(fmt::format("loss: unknown loss '{}'; expected one of {}", name,
                                fmt::join(loss_names(), ", ")));
}

bool needs_auto_weight(const ModelSpec& spec) {
  for (const OutputSpec& output : spec.outputs) {
    if (output.auto_weight) return true;
  }
  return false;
}

train::Objective build_objective(const RunConfig& config, const Model& model,
                                 const DataDimensions& data, double auto_weight) {
  const InputShapes inputs = input_shapes(data);
  const std::vector<Shape> shapes = model.output_shapes(inputs);
  std::vector<train::LossTerm> terms;
  // (what names the output in errors, its index, its target)
  std::vector<std::tuple<std::string, size_t, std::string>> checks;
  if (!config.model.graph()) {
    terms.push_back({.loss = build_loss(config.loss)});
    checks.emplace_back(fmt::format("model[{}] ({})", config.model.layers.size() - 1,
                                    config.model.layers.back().type),
                        0, "labels");
  } else {
    for (size_t i = 0; i < config.model.outputs.size(); ++i) {
      const OutputSpec& output = config.model.outputs[i];
      terms.push_back({.output = output.name,
                       .loss = build_loss(output.loss),
                       .weight = output.auto_weight ? auto_weight : output.weight,
                       .target = train::parse_target(output.target)});
      checks.emplace_back(fmt::format("model.outputs[{}] '{}'", i, output.name), i, output.target);
    }
  }
  train::Objective objective(std::move(terms));
  for (size_t i = 0; i < checks.size(); ++i) {
    const auto& [name, index, target] = checks[i];
    const std::string mismatch =
        train::activation_mismatch(model.output_activation(index), *objective.terms()[i].loss);
    if (!mismatch.empty()) throw ConfigError(fmt::format("{}: {}", name, mismatch));
    // Count labels (sums of bigWig reads, often hundreds) cannot be fitted by an output squashed
    // into (0, 1), nor scored as classes.
    const bool count_labels =
        target == "labels" && config.data.source == "files" &&
        config.data.files.loader.signals.targets == data::TargetSource::kCounts;
    const Activation activation = model.output_activation(index);
    const Loss& loss = *objective.terms()[i].loss;
    const bool squashed = activation == Activation::kSigmoid || activation == Activation::kSoftmax;
    if (count_labels && (squashed || loss.target_kind() != TargetKind::kReal)) {
      throw ConfigError(fmt::format(
          "{}: its labels are bigWig read counts (data.targets \"counts\": sums over each "
          "window, often hundreds), but {}: it cannot fit them; end the model in a linear output "
          "and train with mse or poisson, or train the bpnet preset (--model bpnet) on the "
          "profiles",
          name,
          squashed ? fmt::format("it ends in {}, whose outputs lie in (0, 1)",
                                 activation_name(activation))
                   : fmt::format("its loss {} takes classes", loss.name())));
    }
    const Shape expected = target_shape(target, data);
    if (target != "labels" && data.profile_tracks == 0) {
      throw ConfigError(
          fmt::format("{}: the target '{}' needs per-base profiles: give "
                      "data.profile_bigwigs",
                      name, target));
    }
    if (shapes.at(index) != expected) {
      throw ConfigError(fmt::format(
          "{}: the model gives {} per sample but its target '{}' is {}{}", name,
          shape_text(shapes.at(index)), target, shape_text(expected),
          target == "labels" ? fmt::format(" ({} label column(s)): end with Dense(units={}) or "
                                           "\"units\": \"tasks\"",
                                           data.tasks, data.tasks)
                             : ""));
    }
  }
  return objective;
}

std::unique_ptr<Optimizer> build_optimizer(const OptimizerConfig& c, Model& model) {
  std::vector<Var> parameters = model.trainable_parameters();
  if (parameters.empty()) {
    throw ConfigError("freeze: every parameter is frozen; nothing would be trained");
  }
  if (c.name == "adam" || c.name == "adamw") {
    AdamOptions options = c.adam;
    options.decoupled_weight_decay = c.name == "adamw";
    return std::make_unique<Adam>(parameters, options);
  }
  if (c.name == "sgd") return std::make_unique<SGD>(parameters, c.sgd);
  if (c.name == "rmsprop") return std::make_unique<RMSprop>(parameters, c.rmsprop);
  throw ConfigError(fmt::format("optimizer.name: unknown optimizer '{}'", c.name));
}

namespace {

// The data sizes in checkpoint metadata, by name.
const std::vector<std::pair<const char*, int64_t DataDimensions::*>>& dimension_fields() {
  static const std::vector<std::pair<const char*, int64_t DataDimensions::*>> fields = {
      {"model.data.length", &DataDimensions::length},
      {"model.data.tasks", &DataDimensions::tasks},
      {"model.data.profile_tracks", &DataDimensions::profile_tracks},
      {"model.data.profile_length", &DataDimensions::profile_length},
      {"model.data.control_tracks", &DataDimensions::control_tracks}};
  return fields;
}

}  // namespace

train::CheckpointMetadata model_checkpoint_metadata(const DataDimensions& data,
                                                    const std::vector<std::string>& task_names) {
  train::CheckpointMetadata metadata;
  for (const auto& [key, field] : dimension_fields()) metadata[key] = std::to_string(data.*field);
  metadata["model.task_names"] = nlohmann::json(task_names).dump();
  return metadata;
}

std::optional<DataDimensions> checkpoint_dimensions(const train::CheckpointMetadata& metadata,
                                                    const std::string& path) {
  if (metadata.count("model.data.length") == 0) return std::nullopt;
  DataDimensions data;
  for (const auto& [key, field] : dimension_fields()) {
    auto it = metadata.find(key);
    const std::optional<int64_t> value =
        it == metadata.end() ? std::nullopt : parse_int64(it->second);
    if (!value || *value < 0) {
      throw ConfigError(
          fmt::format("checkpoint '{}': metadata '{}' is '{}', expected an integer "
                      ">= 0",
                      path, key, it == metadata.end() ? "" : it->second));
    }
    data.*field = *value;
  }
  return data;
}

std::vector<std::string> checkpoint_task_names(const train::CheckpointMetadata& metadata) {
  auto it = metadata.find("model.task_names");
  if (it == metadata.end()) return {};
  const nlohmann::json names = nlohmann::json::parse(it->second, nullptr, false);
  if (!names.is_array()) return {};
  std::vector<std::string> out;
  for (const auto& name : names) {
    if (!name.is_string()) return {};
    out.push_back(name.get<std::string>());
  }
  return out;
}

void freeze_layers(Model& model, const std::vector<int64_t>& indices) {
  std::vector<std::shared_ptr<Layer>> layers;
  if (auto* sequential = dynamic_cast<Sequential*>(&model)) {
    for (size_t i = 0; i < sequential->size(); ++i) layers.push_back(sequential->layer(i));
  } else if (auto* graph = dynamic_cast<Graph*>(&model)) {
    for (const Graph::Node& node : graph->nodes()) layers.push_back(node.layer);
  }
  for (const int64_t index : indices) {
    if (index < 0 || index >= static_cast<int64_t>(layers.size())) {
      throw ConfigError(fmt::format("freeze: layer index {} is not in the model (layers 0..{})",
                                    index, static_cast<int64_t>(layers.size()) - 1));
    }
    layers[static_cast<size_t>(index)]->set_trainable(false);
  }
}

}  // namespace strand::app
