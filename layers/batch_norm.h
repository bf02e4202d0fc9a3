// BatchNorm1D: per-channel normalisation of (B, C, L) or (B, C) with a learned scale and shift
// (PyTorch's BatchNorm1d: parameters `weight` and `bias`; running statistics `running_mean`,
// `running_var` and `num_batches_tracked`, saved in checkpoints under those names and never
// trained). Training mode uses the batch's statistics; evaluate() and predict() switch to the
// running ones.
#pragma once

#include <cstdint>

#include "layers/layer.h"
#include "ops/normalization.h"
#include "ops/pooling.h"

namespace strand {

class BatchNorm1D : public Layer {
 public:
  /// momentum as in PyTorch (the weight of the new batch); eps added to the variance.
  explicit BatchNorm1D(int64_t num_features, double momentum = 0.1, double eps = 1e-5);
  Var forward(const Var& x) override;
  /// relu(forward(x)), fused into one pass each way (Sequential runs BatchNorm1D -> ReLU so).
  Var forward_relu(const Var& x);
  /// max_pool1d(relu(forward(x)), pool) as one op (ops/batch_norm_pool.h); x (B, C, L).
  Var forward_relu_max_pool(const Var& x, const Pool1DParams& pool);
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "BatchNorm1D"; }
  void reset_parameters(Generator& generator) override;

 private:
  Var forward_with(const Var& x, bool relu);

  int64_t num_features_;
  double momentum_;
  double eps_;
  Var weight_, bias_;
  Var running_mean_, running_var_, num_batches_tracked_;
};

}  // namespace strand
