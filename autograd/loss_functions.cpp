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

Var mse(const Var& prediction, const Var& target) {
  STRAND_CHECK(prediction.shape() == target.shape(),
               "mse: prediction {} and target {} differ in shape", prediction.value().describe(),
               target.value().describe());
  return mean(square(prediction - target));
}

}  // namespace strand
