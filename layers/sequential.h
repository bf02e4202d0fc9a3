// Sequential: layers applied in order, named "0", "1", ... (so parameters are "0.weight").
// It fuses Conv1D -> ReLU -> GlobalMaxPool1D into one kernel that never materialises the
// activation map (same results as the unfused chain; see kernels/cpu/conv1d_onehot.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "layers/layer.h"

namespace strand {

/// Layers applied in order, named "0", "1", ...; fuses Conv1D -> ReLU -> GlobalMaxPool1D.
class Sequential : public Layer {
 public:
  Sequential() = default;
  /// Appends a layer; returns it for further configuration.
  template <typename L>
  std::shared_ptr<L> add(L layer) {
    return add(std::make_shared<L>(std::move(layer)));
  }
  template <typename L>
  /// Appends a shared layer; returns it.
  std::shared_ptr<L> add(std::shared_ptr<L> layer) {
    layers_.push_back(layer);
    return register_module(std::to_string(layers_.size() - 1), layer);
  }

  Var forward(const Var& x) override { return forward_layers(x, size()); }
  /// Runs the first `count` layers only (e.g. all but a final Sigmoid, to get logits).
  Var forward_layers(const Var& x, size_t count);
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "Sequential"; }

  /// As a Model: every layer but a final Sigmoid, Softmax or Exp, which output_activation()
  /// names instead (so BCE trains on logits).
  std::vector<Var> forward_outputs(const ModelInputs& inputs) override;
  Activation output_activation(size_t index) const override;

  /// The number of layers.
  size_t size() const { return layers_.size(); }
  /// Layer `i` (throws std::out_of_range).
  const std::shared_ptr<Layer>& layer(size_t i) const { return layers_.at(i); }
  /// Whether Conv1D -> ReLU -> GlobalMaxPool1D runs fused (default on).
  void set_fusion(bool enabled) { fusion_ = enabled; }
  /// Whether fusion is enabled.
  bool fusion() const { return fusion_; }

  /// A Keras-like table: layer, output shape, parameter count, and the totals, for a
  /// per-sample input shape (e.g. {500} for base codes). Throws naming the first layer whose
  /// input does not fit.
  std::string summary(const Shape& input) const;
  /// summary(inputs.sequence).
  std::string summary(const InputShapes& inputs) const override { return summary(inputs.sequence); }

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
  bool fusion_ = true;
};

}  // namespace strand
