// Differentiable losses: binary cross-entropy from logits and mean squared error.
#include "autograd/functions.h"
#include "tensor/ops.h"

namespace strand {

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

}  // namespace strand
