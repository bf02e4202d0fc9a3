// Losses: binary cross-entropy from logits (elementwise, mean, weighted by a mask, weighted per
// task), mean squared error, Poisson NLL, categorical cross-entropy and the multinomial NLL of
// BPNet's profile head. Declared, checked, dispatched and differentiated here; the kernels are
// kernels/cpu/loss.h and kernels/cuda/loss.cu.
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
/// The mean of `values` weighted per element by `weights` (same shape; e.g. a label mask):
/// sum(w * v) / max(sum(w), tiny), so an all-masked batch gives 0, not NaN.
Var masked_mean(const Var& values, const Tensor& weights);
/// Multi-task BCE of logits (B, T): each task's terms weighted by task_weights (T), ambiguous
/// labels (mask 0) skipped; the sum is divided by the total weight of the valid labels.
Var bce_with_logits_task_weighted(const Var& logits, const Var& targets, const Tensor& mask,
                                  const Tensor& task_weights);
/// Poisson negative log-likelihood of counts given log rates (PyTorch's PoissonNLLLoss with
/// log_input=True, full=False): mean of exp(x) - y * x.
Var poisson_nll(const Var& log_rate, const Var& counts);
/// Categorical cross-entropy of logits (B, K) against target distributions (B, K) (one-hot or
/// soft): mean over the batch of -sum_k y_k log_softmax(x)_k.
Var categorical_crossentropy(const Var& logits, const Var& targets);
/// BPNet's multinomial negative log-likelihood of a profile: logits (..., L) over positions,
/// counts (..., L) observed reads. Per profile -(lgamma(N + 1) - sum lgamma(c + 1) +
/// sum c * log_softmax(logits)) with N = sum c; the mean over profiles. The lgamma terms do
/// not depend on the logits (no gradient) but make the value a true log-likelihood.
Var multinomial_nll(const Var& logits, const Tensor& counts);

}  // namespace strand
