// Conv1D layer: x (B, C_in, L) -> (B, C_out, L_out); or DNA base codes (B, L) uint8 when
// C_in = 4, through the one-hot gather kernel (no one-hot tensor is ever made).
#pragma once

#include "layers/layer.h"
#include "ops/conv1d.h"

namespace strand {

/// Conv1D padding: none ("valid") or enough to keep the length ("same", stride 1).
enum class Padding { kValid, kSame };

/// Options of Conv1D beyond the channel counts and kernel size.
struct Conv1DOptions {
  int64_t stride = 1;                 ///< step between output positions
  int64_t dilation = 1;               ///< spacing between kernel taps
  Padding padding = Padding::kValid;  ///< valid or same
  bool bias = true;                   ///< whether to add a learned bias
};

/// 1D convolution over (B, C_in, L) floats, or over (B, L) uint8 base codes when C_in = 4.
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
  Conv1DParams params_for_length(int64_t length) const;
  /// The weight, (C_out, C_in, K).
  const Var& weight() const { return weight_; }
  /// The bias, (C_out); undefined without bias.
  const Var& bias() const { return bias_; }
  /// C_in
  int64_t in_channels() const { return in_channels_; }
  /// C_out
  int64_t out_channels() const { return out_channels_; }
  /// K
  int64_t kernel_size() const { return kernel_size_; }
  /// Stride, dilation, padding and bias.
  const Conv1DOptions& options() const { return options_; }

 private:
  void check_input(const Shape& input) const;

  int64_t in_channels_, out_channels_, kernel_size_;
  Conv1DOptions options_;
  Var weight_, bias_;
};

}  // namespace strand
