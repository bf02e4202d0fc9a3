// Dense (fully connected) layer: x (B, in) -> x @ W^T + b: (B, out). W is (out, in), the
// PyTorch layout, so checkpoints load into torch.nn.Linear unchanged.
#pragma once

#include "layers/layer.h"

namespace strand {

/// Fully connected layer: (B, in) -> x W^T + b, (B, out).
class Dense : public Layer {
 public:
  /// Weights Glorot-uniform (Keras default), bias zero.
  Dense(int64_t in_features, int64_t out_features, bool bias = true,
        Generator& generator = default_generator());

  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "Dense"; }
  void reset_parameters(Generator& generator) override;

  /// The weight, (out, in).
  const Var& weight() const { return weight_; }
  /// The bias, (out); undefined without bias.
  const Var& bias() const { return bias_; }

 private:
  int64_t in_features_, out_features_;
  Var weight_, bias_;
};

}  // namespace strand
