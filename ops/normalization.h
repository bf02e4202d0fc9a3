// Batch normalisation over the batch (and position) axis of (B, C, L) or (B, C) inputs,
// composed from the elementwise and reduction families (so both backends and the gradient come
// with them). Training mode normalises with the batch's statistics and updates the running
// ones; evaluation mode normalises with the running ones.
#pragma once

#include "autograd/var.h"
#include "tensor/tensor.h"

namespace strand {

/// The running statistics a BatchNorm layer keeps (PyTorch's buffers): float tensors of (C)
/// and a 0-d float64 count, updated in place in training mode.
struct BatchNormStatistics {
  Tensor running_mean;
  Tensor running_var;  ///< of the unbiased batch variance, as PyTorch keeps it
  Tensor num_batches_tracked;
};

/// y = (x - mean) / sqrt(var + eps) * weight + bias per channel; x: (B, C, L) or (B, C), weight
/// and bias: (C). Training: mean and (biased) var of this batch over every axis but C, and
/// running = (1 - momentum) * running + momentum * batch (PyTorch's momentum, 0.1 by
/// default; Keras's 0.99 is 1 - this). Evaluation: the running statistics.
Var batch_norm(const Var& x, const Var& weight, const Var& bias, BatchNormStatistics& statistics,
               bool training, double momentum, double eps);

}  // namespace strand
