// Batch normalisation over the batch (and position) axis of (B, C, L) or (B, C) inputs, as one
// fused op family: training mode normalises with the batch's statistics and updates the running
// ones; evaluation mode normalises with the running ones; either may apply a following ReLU in
// the same pass (Sequential fuses BatchNorm1D -> ReLU). Declared, checked, dispatched and
// differentiated here; the kernels are kernels/cpu/normalization.h and
// kernels/cuda/normalization.cu.
#pragma once

#include <tuple>

#include "autograd/var.h"
#include "kernels/normalization_geometry.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

/// The running statistics a BatchNorm layer keeps (PyTorch's buffers): float tensors of (C)
/// and a 0-d float64 count, updated in place in training mode.
struct BatchNormStatistics {
  Tensor running_mean;
  Tensor running_var;  ///< of the unbiased batch variance, as PyTorch keeps it
  Tensor num_batches_tracked;
};

/// How a batch_norm call runs.
struct BatchNormOptions {
  bool training = true;   ///< batch statistics (and update the running ones), else running ones
  double momentum = 0.1;  ///< PyTorch's: the weight of the new batch in the running statistics
  double eps = 1e-5;      ///< added to the variance
  bool relu = false;      ///< out = max(out, 0), a fused following ReLU
};

/// The kernels' geometry of x (B, C, L) or (B, C) (both backends' adapters use it).
inline kernels::BatchNormGeometry batch_norm_geometry(const Shape& x) {
  return {.batch = x[0], .channels = x[1], .length = x.size() == 3 ? x[2] : 1};
}

// ---- The ops and their kernel signatures -----------------------------------------------
// x: (B, C, L) or (B, C) contiguous; weight, bias, running_mean, running_var: (C) contiguous
// -> out: x's shape; mean, invstd: (C), the statistics it normalised with (the batch's in
// training, where running_mean and running_var are also updated in place; else the running ones).
STRAND_DECLARE_OP(BatchNormForwardOp, "batch_norm_forward",
                  void(const Tensor& x, const Tensor& weight, const Tensor& bias,
                       const BatchNormOptions& options, Tensor& running_mean, Tensor& running_var,
                       Tensor& out, Tensor& mean, Tensor& invstd));
// grad_out, x, out: x's shape, contiguous (out is read only with options.relu, for the mask);
// weight, mean, invstd: (C) -> grad_x (x's shape), grad_weight, grad_bias (C), overwritten.
STRAND_DECLARE_OP(BatchNormBackwardOp, "batch_norm_backward",
                  void(const Tensor& grad_out, const Tensor& x, const Tensor& out,
                       const Tensor& weight, const Tensor& mean, const Tensor& invstd,
                       const BatchNormOptions& options, Tensor& grad_x, Tensor& grad_weight,
                       Tensor& grad_bias));

// ---- On tensors (no autograd) -----------------------------------------------------------
namespace ops {
/// (out, mean, invstd); in training also updates statistics (num_batches_tracked included).
std::tuple<Tensor, Tensor, Tensor> batch_norm(const Tensor& x, const Tensor& weight,
                                              const Tensor& bias, BatchNormStatistics& statistics,
                                              const BatchNormOptions& options);
/// (grad_x, grad_weight, grad_bias) from the forward's x, out, mean and invstd.
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& x,
                                                       const Tensor& out, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& invstd,
                                                       const BatchNormOptions& options);
}  // namespace ops

// ---- Differentiable ---------------------------------------------------------------------
/// y = (x - mean) / sqrt(var + eps) * weight + bias per channel; x: (B, C, L) or (B, C), weight
/// and bias: (C). Training: mean and (biased) var of this batch over every axis but C, and
/// running = (1 - momentum) * running + momentum * batch (PyTorch's momentum, 0.1 by
/// default; Keras's 0.99 is 1 - this), running_var from the unbiased variance. Evaluation: the
/// running statistics.
Var batch_norm(const Var& x, const Var& weight, const Var& bias, BatchNormStatistics& statistics,
               bool training, double momentum, double eps);
/// relu(batch_norm(...)) in one pass each way; same arguments.
Var batch_norm_relu(const Var& x, const Var& weight, const Var& bias,
                    BatchNormStatistics& statistics, bool training, double momentum, double eps);

}  // namespace strand
