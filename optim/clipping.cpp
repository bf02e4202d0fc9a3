// Gradient clipping and the max-norm constraint, with tensor ops (no host reads).
#include "optim/clipping.h"

#include "ops/elementwise.h"
#include "ops/reduction.h"

namespace strand {

Tensor clip_grad_norm(const std::vector<Var>& parameters, double max_norm) {
  STRAND_CHECK(max_norm > 0.0, "clip_grad_norm: max_norm must be positive, got {}", max_norm);
  Tensor squared_total;  // float64 0-d on the gradients' device
  for (const Var& parameter : parameters) {
    const Tensor& grad = parameter.grad();
    if (!grad.defined()) continue;
    // Accumulated in float64 without a float64 copy of the gradient on a GPU.
    const Tensor squares = ops::sum_of_squares(grad);
    squared_total = squared_total.defined() ? ops::add(squared_total, squares) : squares;
  }
  if (!squared_total.defined()) return Tensor();
  const Tensor total = ops::sqrt(squared_total);
  const Tensor limit = Tensor::full({}, max_norm, DType::kFloat64, total.device());
  const Tensor factor = ops::div(limit, ops::maximum(total, limit));  // 1 within the limit
  for (const Var& parameter : parameters) {
    Tensor grad = parameter.grad();  // a handle: copy_ writes the parameter's gradient
    if (!grad.defined()) continue;
    grad.copy_(ops::mul(grad, factor.to(grad.dtype())));
  }
  return total;
}

void apply_max_norm(const Var& weight, double max_norm) {
  STRAND_CHECK(max_norm > 0.0, "apply_max_norm: max_norm must be positive, got {}", max_norm);
  Tensor value = weight.value();
  STRAND_CHECK(value.dim() >= 1,
               "apply_max_norm: expected a weight with an output dimension, "
               "got {}",
               value.describe());
  std::vector<int64_t> inputs;  // every dimension but the first
  for (int64_t d = 1; d < value.dim(); ++d) inputs.push_back(d);
  const Tensor norms = ops::sqrt(ops::sum(ops::square(value), inputs, /*keepdim=*/true));
  const Tensor limit = Tensor::full({}, max_norm, value.dtype(), value.device());
  value.copy_(ops::mul(value, ops::div(limit, ops::maximum(norms, limit))));
}

}  // namespace strand
