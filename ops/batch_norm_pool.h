// BatchNorm -> ReLU -> MaxPool1D as one op: relu(batch_norm(x)) max-pooled, the pooled output
// and its argmax, without the (B, C, L) activation between them (Basset's wide first layers: the
// normalised activation was written, read by the pooling and read again by the backward pass).
// Its CPU kernels are the composition of the batch_norm_relu and max_pool1d kernels, so the CPU
// computes exactly what the unfused chain does; the CUDA kernels
// (kernels/cuda/batch_norm_pool.cu) normalise as they pool and route the pooled gradients inside
// the normalisation's backward pass. Sequential and Graph fuse BatchNorm1D -> ReLU -> MaxPool1D
// into it on a GPU (layers/fusion.h).
#pragma once

#include <tuple>

#include "autograd/var.h"
#include "ops/normalization.h"
#include "ops/pooling.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

// ---- The ops and their kernel signatures -----------------------------------------------
// x: (B, C, L) contiguous; weight, bias, running statistics: (C) -> out, argmax: (B, C, L_out)
// (max_pool1d's: the first maximum's position within L); mean, invstd: (C), the statistics x
// was normalised with (the batch's in training, where the running ones are also updated).
// options.relu is ignored (the ReLU is part of the op).
STRAND_DECLARE_OP(BatchNormReluMaxPoolOp, "batch_norm_relu_max_pool",
                  void(const Tensor& x, const Tensor& weight, const Tensor& bias,
                       const BatchNormOptions& options, const Pool1DParams& pool,
                       Tensor& running_mean, Tensor& running_var, Tensor& out, Tensor& argmax,
                       Tensor& mean, Tensor& invstd));
// grad_out: (B, C, L_out) contiguous, and the forward's x, out, argmax, weight, mean, invstd ->
// grad_x (B, C, L), grad_weight, grad_bias (C), overwritten.
STRAND_DECLARE_OP(BatchNormReluMaxPoolBackwardOp, "batch_norm_relu_max_pool_backward",
                  void(const Tensor& grad_out, const Tensor& x, const Tensor& out,
                       const Tensor& argmax, const Tensor& weight, const Tensor& mean,
                       const Tensor& invstd, const BatchNormOptions& options,
                       const Pool1DParams& pool, Tensor& grad_x, Tensor& grad_weight,
                       Tensor& grad_bias));

// ---- On tensors (no autograd) -----------------------------------------------------------
namespace ops {
/// (out, argmax, mean, invstd) of max_pool1d(relu(batch_norm(x))); in training also updates
/// the statistics (num_batches_tracked included).
std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_relu_max_pool(
    const Tensor& x, const Tensor& weight, const Tensor& bias, BatchNormStatistics& statistics,
    const BatchNormOptions& options, const Pool1DParams& pool);
/// (grad_x, grad_weight, grad_bias) from the forward's x, out, argmax, mean and invstd.
std::tuple<Tensor, Tensor, Tensor> batch_norm_relu_max_pool_backward(
    const Tensor& grad_out, const Tensor& x, const Tensor& out, const Tensor& argmax,
    const Tensor& weight, const Tensor& mean, const Tensor& invstd, const BatchNormOptions& options,
    const Pool1DParams& pool);
}  // namespace ops

// ---- Differentiable ---------------------------------------------------------------------
/// max_pool1d(relu(batch_norm(x, ...)), pool) in one op: x (B, C, L), the batch_norm arguments
/// as batch_norm()'s. An attribution pass runs the unfused chain (its ReLU and max-pool rules).
Var batch_norm_relu_max_pool(const Var& x, const Var& weight, const Var& bias,
                             BatchNormStatistics& statistics, bool training, double momentum,
                             double eps, const Pool1DParams& pool);

}  // namespace strand
