// Sequential container (fusing runs of layers through layers/fusion.h) and summary().
#include "layers/sequential.h"

#include "layers/activations.h"
#include "layers/fusion.h"

namespace strand {

Var Sequential::forward_layers(const Var& x, size_t count) {
  STRAND_CHECK(count <= layers_.size(), "Sequential: asked for {} layers of {}", count,
               layers_.size());
  std::vector<Layer*> run(count);
  for (size_t i = 0; i < count; ++i) run[i] = layers_[i].get();
  Var h = x;
  for (size_t i = 0; i < count;) {
    const std::span<Layer* const> rest(run.data() + i, count - i);
    const size_t length = fusion_ ? fused_run_length(rest) : 1;
    h = forward_fused_run(rest, length, h);
    i += length;
  }
  return h;
}

std::vector<Var> Sequential::forward_outputs(const ModelInputs& inputs) {
  const bool final = output_activation(0) != Activation::kIdentity;
  return {forward_layers(inputs.sequence, final ? size() - 1 : size())};
}

Activation Sequential::output_activation(size_t /*index*/) const {
  return layers_.empty() ? Activation::kIdentity : final_activation_of(*layers_.back());
}

Shape Sequential::output_shape(const Shape& input) const {
  Shape shape = input;
  for (size_t i = 0; i < layers_.size(); ++i) {
    try {
      shape = layers_[i]->output_shape(shape);
    } catch (const Error& error) {
      throw Error(fmt::format("layer {} ({}): {}", i, layers_[i]->type_name(), error.what()));
    }
  }
  return shape;
}

std::string Sequential::summary(const Shape& input) const {
  std::string text = fmt::format("{:<28}{:<22}{:>10}\n", "Layer (type)", "Output shape", "Param #");
  text += std::string(60, '=') + "\n";
  Shape shape = input;
  for (size_t i = 0; i < layers_.size(); ++i) {
    try {
      shape = layers_[i]->output_shape(shape);
    } catch (const Error& error) {
      throw Error(fmt::format("layer {} ({}): {}", i, layers_[i]->type_name(), error.what()));
    }
    text += fmt::format("{:<28}{:<22}{:>10}\n", fmt::format("{} ({})", i, layers_[i]->type_name()),
                        batched_shape_text(shape), layers_[i]->parameter_count());
  }
  text += std::string(60, '=') + "\n";
  text += parameter_totals(*this);
  return text;
}

}  // namespace strand
