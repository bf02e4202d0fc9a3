// Sequential container (fusing runs of layers through layers/layer_fusion.h) and summary().
#include "layers/sequential.h"

#include <span>

#include "layers/layer_fusion.h"

namespace strand {

Var Sequential::forward_layers(const Var& x, size_t count) {
  STRAND_CHECK(count <= layers_.size(), "Sequential: asked for {} layers of {}", count,
               layers_.size());
  Var h = x;
  const std::span<const std::shared_ptr<Layer>> chain(layers_.data(), count);
  for (size_t i = 0; i < count; ++i) {
    if (fusion_) {
      const FusedRun fused = run_fused(chain.subspan(i), h);
      if (fused.layers > 0) {
        h = fused.output;
        i += fused.layers - 1;
        continue;
      }
    }
    h = layers_[i]->forward(h);
  }
  return h;
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
  int64_t trainable = 0, total = 0;
  for (size_t i = 0; i < layers_.size(); ++i) {
    try {
      shape = layers_[i]->output_shape(shape);
    } catch (const Error& error) {
      throw Error(fmt::format("layer {} ({}): {}", i, layers_[i]->type_name(), error.what()));
    }
    Shape batched = {-1};
    batched.insert(batched.end(), shape.begin(), shape.end());
    std::string shape_text = shape_to_string(batched);
    shape_text.replace(1, 2, "None");
    const int64_t count = layers_[i]->parameter_count();
    total += count;
    for (const Var& p : layers_[i]->trainable_parameters()) trainable += p.value().numel();
    text += fmt::format("{:<28}{:<22}{:>10}\n", fmt::format("{} ({})", i, layers_[i]->type_name()),
                        shape_text, count);
  }
  text += std::string(60, '=') + "\n";
  text += fmt::format("Total params: {}\nTrainable params: {}\nNon-trainable params: {}\n", total,
                      trainable, total - trainable);
  return text;
}

}  // namespace strand
