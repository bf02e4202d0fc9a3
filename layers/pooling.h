// Pooling layers over positions: MaxPool1D and AvgPool1D (windows of pool_size, stride
// pool_size unless given, optional ceil_mode as in PyTorch) and GlobalAvgPool1D.
// (GlobalMaxPool1D is in activations.h, beside the fusion it takes part in.)
#pragma once

#include <cstdint>

#include "layers/layer.h"
#include "ops/pooling.h"

namespace strand {

/// (B, C, L) -> (B, C, L_out): the maximum of each window.
class MaxPool1D : public Layer {
 public:
  /// stride 0: pool_size (non-overlapping windows, Keras's and PyTorch's default).
  explicit MaxPool1D(int64_t pool_size, int64_t stride = 0, bool ceil_mode = false);
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "MaxPool1D"; }
  const Pool1DParams& params() const { return params_; }

 private:
  Pool1DParams params_;
};

/// (B, C, L) -> (B, C, L_out): the mean of each window.
class AvgPool1D : public Layer {
 public:
  /// stride 0: pool_size.
  explicit AvgPool1D(int64_t pool_size, int64_t stride = 0, bool ceil_mode = false);
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "AvgPool1D"; }
  const Pool1DParams& params() const { return params_; }

 private:
  Pool1DParams params_;
};

/// (B, C, L) -> (B, C): the mean over positions (BPNet's counts head).
class GlobalAvgPool1D : public Layer {
 public:
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "GlobalAvgPool1D"; }
};

}  // namespace strand
