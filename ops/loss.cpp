// Losses: argument checks and dispatch, the CPU adapters with their registration (the CUDA ones:
// ops/cuda/loss.cpp), and the differentiable functions with their gradient rules.
#include "ops/loss.h"

#include <vector>

#include "core/dtype_dispatch.h"
#include "kernels/cpu/loss.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "ops/softmax.h"
#include "tensor/argument_checks.h"

namespace strand {

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

Tensor bce_with_logits(const Tensor& logits, const Tensor& targets) {
  check_floating("bce_with_logits", logits);
  check_floating("bce_with_logits", targets);
  check_same_shape("bce_with_logits", logits, targets);
  check_same_dtype("bce_with_logits", logits, targets);
  check_same_device("bce_with_logits", logits, targets);
  Tensor out = Tensor::empty(logits.shape(), logits.dtype(), logits.device());
  dispatch<BceWithLogitsOp>(logits.device(), logits, targets, out);
  return out;
}

Tensor bce_with_logits_backward(const Tensor& grad_out, const Tensor& logits,
                                const Tensor& targets) {
  Tensor grad = Tensor::empty(logits.shape(), logits.dtype(), logits.device());
  dispatch<BceWithLogitsBackwardOp>(logits.device(), grad_out, logits, targets, grad);
  return grad;
}

}  // namespace ops

// ---- CPU adapters: Tensors to kernels/cpu/loss.h ---------------------------------------------
namespace {

void bce_with_logits_cpu(const Tensor& logits, const Tensor& targets, Tensor& out) {
  const Tensor x = logits.contiguous(), y = targets.contiguous();
  dispatch_floating(x.dtype(), "bce_with_logits", [&]<typename T>() {
    kernels::cpu::bce_with_logits_forward<T>(x.numel(), x.data<T>(), y.data<T>(), out.data<T>());
  });
}

void bce_with_logits_backward_cpu(const Tensor& grad_out, const Tensor& logits,
                                  const Tensor& targets, Tensor& grad_logits) {
  const Tensor g = grad_out.contiguous(), x = logits.contiguous(), y = targets.contiguous();
  dispatch_floating(x.dtype(), "bce_with_logits_backward", [&]<typename T>() {
    kernels::cpu::bce_with_logits_backward<T>(x.numel(), g.data<T>(), x.data<T>(), y.data<T>(),
                                              grad_logits.data<T>());
  });
}

}  // namespace

STRAND_REGISTER_KERNELS(loss_cpu) {
  OpKernels<BceWithLogitsOp>::register_kernel(DeviceType::kCPU, bce_with_logits_cpu);
  OpKernels<BceWithLogitsBackwardOp>::register_kernel(DeviceType::kCPU,
                                                      bce_with_logits_backward_cpu);
}

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

Var bce_with_logits(const Var& logits, const Var& targets) {
  STRAND_CHECK(logits.shape() == targets.shape(),
               "bce_with_logits: logits {} and targets {} differ in shape",
               logits.value().describe(), targets.value().describe());
  const Tensor x = logits.value(), y = targets.value();
  const Tensor elementwise = ops::bce_with_logits(x, y);
  const double scale = 1.0 / static_cast<double>(x.numel());
  return make_result(ops::mean(elementwise), "bce_with_logits", {logits}, [=](const Tensor& g) {
    // g is a scalar; spread it evenly over the elements.
    const Tensor spread = ops::affine(g.reshape({1}).expand(x.shape()), scale, 0.0);
    return std::vector<Tensor>{ops::bce_with_logits_backward(spread, x, y)};
  });
}

Var bce_with_logits(const Var& logits, const Var& targets, const Tensor& weights) {
  STRAND_CHECK(weights.shape() == logits.shape(),
               "bce_with_logits: weights {} do not match logits {}", weights.describe(),
               logits.value().describe());
  const Tensor x = logits.value(), y = targets.value();
  const Tensor w = weights.to(x.dtype());
  // The normaliser stays a device tensor (no item(): that would synchronise a GPU step). An
  // all-masked batch has no valid label: max(sum(w), 1e-12) makes its loss and gradient zero,
  // not NaN.
  const Tensor denominator =
      ops::maximum(ops::sum(w), Tensor::full({}, 1e-12, x.dtype(), x.device()));
  const Tensor weighted = ops::mul(ops::bce_with_logits(x, y), w);
  return make_result(ops::div(ops::sum(weighted), denominator), "bce_with_logits_weighted",
                     {logits}, [=](const Tensor& g) {
                       // g: () -> (B, T) of g * w / sum(w)
                       const Tensor per_unit_weight = ops::div(g, denominator);
                       const Tensor spread = ops::mul(per_unit_weight, w);
                       return std::vector<Tensor>{ops::bce_with_logits_backward(spread, x, y)};
                     });
}

Var mse(const Var& prediction, const Var& target) {
  STRAND_CHECK(prediction.shape() == target.shape(),
               "mse: prediction {} and target {} differ in shape", prediction.value().describe(),
               target.value().describe());
  return mean(square(prediction - target));
}

Var masked_mean(const Var& values, const Tensor& weights) {
  STRAND_CHECK(weights.shape() == values.shape(), "masked_mean: weights {} do not match values {}",
               weights.describe(), values.value().describe());
  const Tensor w = weights.to(values.dtype()).to(values.device());
  // A device tensor, as in bce_with_logits: no host read in a GPU step.
  const Tensor denominator =
      ops::maximum(ops::sum(w), Tensor::full({}, 1e-12, w.dtype(), w.device()));
  return div(sum(mul(values, Var(w))), Var(denominator));
}

Var bce_with_logits_task_weighted(const Var& logits, const Var& targets, const Tensor& mask,
                                  const Tensor& task_weights) {
  STRAND_CHECK(
      logits.dim() == 2 && task_weights.dim() == 1 && task_weights.size(0) == logits.size(1),
      "bce_with_logits_task_weighted: logits {} need (B, T) and task weights {} (T)",
      logits.value().describe(), task_weights.describe());
  const Tensor weights =
      ops::mul(mask.to(logits.dtype()).to(logits.device()),
               task_weights.to(logits.dtype()).to(logits.device()));  // (B, T) * (T)
  return bce_with_logits(logits, targets, weights);
}

Var poisson_nll(const Var& log_rate, const Var& counts) {
  STRAND_CHECK(log_rate.shape() == counts.shape(),
               "poisson_nll: log rates {} and counts {} differ in shape",
               log_rate.value().describe(), counts.value().describe());
  return mean(sub(exp(log_rate), mul(counts, log_rate)));
}

Var categorical_crossentropy(const Var& logits, const Var& targets) {
  STRAND_CHECK(logits.dim() == 2 && logits.shape() == targets.shape(),
               "categorical_crossentropy: logits {} and targets {} must both be (B, K)",
               logits.value().describe(), targets.value().describe());
  const Var per_example = sum(mul(targets, log_softmax(logits, 1)), {1});  // (B)
  return neg(mean(per_example));
}

Var multinomial_nll(const Var& logits, const Tensor& counts) {
  STRAND_CHECK(logits.shape() == counts.shape() && logits.dim() >= 1,
               "multinomial_nll: logits {} and counts {} differ in shape",
               logits.value().describe(), counts.describe());
  const int64_t last = logits.dim() - 1;
  const Tensor c = counts.to(logits.dtype());
  // The constant per profile, lgamma(N + 1) - sum lgamma(c + 1), computed where the counts
  // are: a GPU step reads nothing back to the host.
  const Tensor log_factorials =
      ops::sum(ops::unary(UnaryOpKind::kLgamma, ops::affine(c, 1.0, 1.0)), {last});
  const Tensor total_log_factorial =
      ops::unary(UnaryOpKind::kLgamma, ops::affine(ops::sum(c, {last}), 1.0, 1.0));
  const Tensor coefficient = ops::sub(total_log_factorial, log_factorials);
  const Var log_likelihood =
      add(sum(mul(Var(c), log_softmax(logits, last)), {last}), Var(coefficient));
  return neg(mean(log_likelihood));
}

}  // namespace strand
