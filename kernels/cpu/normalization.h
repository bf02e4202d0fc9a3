// Batch normalisation CPU kernels, fused: per channel c of x (B, C, L) (L = 1 for (B, C)),
//   training:   mean, biased var over (B, L); invstd = 1 / sqrt(var + eps)
//   evaluation: mean = running_mean, invstd = 1 / sqrt(running_var + eps)
//   out = (x - mean) * (weight * invstd) + bias, and max(out, 0) when `relu` (BatchNorm -> ReLU)
// and the backward pass, with dy' = dy masked by out > 0 when relu:
//   grad_bias = sum dy', grad_weight = sum dy' * xhat (xhat = (x - mean) * invstd),
//   training:   grad_x = weight * invstd / N * (N * dy' - grad_bias - xhat * grad_weight)
//   evaluation: grad_x = weight * invstd * dy'.
// Two passes each way (statistics, then normalise; sums, then grad_x). Statistics and sums are
// taken per (b, c) row and combined per channel in batch order (Chan et al.'s pairwise update
// for the variance), in double: a result does not depend on the thread count. The *_reference
// functions are the readable oracles (one channel at a time, plain double sums).
// All pointers contiguous; weight, bias, running_*, mean, invstd, grad_weight, grad_bias: (C).
#pragma once

#include <cstdint>

#include "kernels/normalization_geometry.h"

namespace strand::kernels::cpu {

/// Training forward: out, the batch's mean and invstd (saved for backward), and the running
/// statistics updated in place: running = (1 - momentum) * running + momentum * batch, with the
/// unbiased variance (N / (N - 1) * var) for running_var.
template <typename T>
void batch_norm_forward_training(const BatchNormGeometry& g, const T* x, const T* weight,
                                 const T* bias, double momentum, double eps, bool relu,
                                 T* running_mean, T* running_var, T* out, T* mean, T* invstd);
/// Evaluation forward with the running statistics; mean and invstd as used (for backward).
template <typename T>
void batch_norm_forward_inference(const BatchNormGeometry& g, const T* x, const T* weight,
                                  const T* bias, const T* running_mean, const T* running_var,
                                  double eps, bool relu, T* out, T* mean, T* invstd);
/// grad_x, grad_weight and grad_bias overwritten. out: the forward's output, read only when
/// relu (the mask); may be null otherwise.
template <typename T>
void batch_norm_backward(const BatchNormGeometry& g, const T* grad_out, const T* x, const T* out,
                         const T* weight, const T* mean, const T* invstd, bool training, bool relu,
                         T* grad_x, T* grad_weight, T* grad_bias);

template <typename T>
void batch_norm_forward_training_reference(const BatchNormGeometry& g, const T* x, const T* weight,
                                           const T* bias, double momentum, double eps, bool relu,
                                           T* running_mean, T* running_var, T* out, T* mean,
                                           T* invstd);
template <typename T>
void batch_norm_backward_reference(const BatchNormGeometry& g, const T* grad_out, const T* x,
                                   const T* out, const T* weight, const T* mean, const T* invstd,
                                   bool training, bool relu, T* grad_x, T* grad_weight,
                                   T* grad_bias);

}  // namespace strand::kernels::cpu
