// Losses: binary cross-entropy from logits (elementwise, mean, and weighted by a mask) and mean
// squared error. Declared, checked, dispatched and differentiated here; the kernels are
// kernels/cpu/bce.h and kernels/cuda/elementwise.cu.
#pragma once

#include "autograd/var.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

// ---- The ops and their kernel signatures -----------------------------------------------
// elementwise loss = max(x, 0) - x * y + log(1 + exp(-|x|)); x, y same shape
STRAND_DECLARE_OP(BceWithLogitsOp, "bce_with_logits",
                  void(const Tensor& logits, const Tensor& targets, Tensor& out));
// grad = grad_out * (sigmoid(x) - y)
STRAND_DECLARE_OP(BceWithLogitsBackwardOp, "bce_with_logits_backward",
                  void(const Tensor& grad_out, const Tensor& logits, const Tensor& targets,
                       Tensor& grad_logits));

// ---- On tensors (no autograd) -----------------------------------------------------------
namespace ops {
/// Elementwise numerically stable binary cross-entropy of logits against targets in [0, 1].
Tensor bce_with_logits(const Tensor& logits, const Tensor& targets);
Tensor bce_with_logits_backward(const Tensor& grad_out, const Tensor& logits,
                                const Tensor& targets);
}  // namespace ops

// ---- Differentiable (mean over all elements) ----------------------------------------------
/// Mean binary cross-entropy of logits against targets in [0, 1] (same shape).
Var bce_with_logits(const Var& logits, const Var& targets);
/// BCE weighted per element (e.g. a label mask: 0 = ambiguous, skipped), averaged over the
/// total weight: sum(w * bce) / max(sum(w), tiny).
Var bce_with_logits(const Var& logits, const Var& targets, const Tensor& weights);
/// Mean squared error.
Var mse(const Var& prediction, const Var& target);

}  // namespace strand
