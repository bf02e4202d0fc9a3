// Conv1D layer: x (B, C_in, L) -> (B, C_out, L_out); or DNA base codes (B, L) uint8 when
// C_in = 4, through the one-hot gather kernel (no one-hot tensor is ever made).
#pragma once

#include "layers/layer.h"
#include "tensor/op_declarations.h"

namespace strand {

enum class Padding { kValid, kSame };

struct Conv1DOptions {
  int64_t stride = 1;
  int64_t dilation = 1;
  Padding padding = Padding::kValid;
  bool bias = true;
};

class Conv1D : public Layer {
 public:
  /// Weights (C_out, C_in, K) drawn Glorot-uniform (the Keras default the reference
  /// experiment used), bias zero.
  Conv1D(int64_t in_channels, int64_t out_channels, int64_t kernel_size, Conv1DOptions options = {},
         Generator& generator = default_generator());

  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "Conv1D"; }
  void reset_parameters(Generator& generator) override;

  /// The kernel parameters for an input of `length` (resolves "same" padding).
  Conv1dParams params_for_length(int64_t length) const;
  const Var& weight() const { return weight_; }
  const Var& bias() const { return bias_; }
  int64_t in_channels() const { return in_channels_; }
  int64_t out_channels() const { return out_channels_; }
  int64_t kernel_size() const { return kernel_size_; }
  const Conv1DOptions& options() const { return options_; }

 private:
  void check_input(const Shape& input) const;

  int64_t in_channels_, out_channels_, kernel_size_;
  Conv1DOptions options_;
  Var weight_, bias_;
};

}  // namespace strand
