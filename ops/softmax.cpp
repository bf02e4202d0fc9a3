// Softmax and log-softmax, composed from differentiable ops.
#include "ops/softmax.h"

#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"

namespace strand {

Var log_softmax(const Var& x, int64_t dim) {
  // The max is a constant shift: taken from the value, outside the graph.
  const Var shift(ops::max(x.value(), dim, /*keepdim=*/true).first);
  const Var z = sub(x, shift);
  return sub(z, log(sum(exp(z), {dim}, /*keepdim=*/true)));
}

Var softmax(const Var& x, int64_t dim) { return exp(log_softmax(x, dim)); }

namespace ops {

Tensor log_softmax(const Tensor& x, int64_t dim) {
  NoGradGuard no_grad;
  return strand::log_softmax(Var(x), dim).value();
}

Tensor softmax(const Tensor& x, int64_t dim) {
  NoGradGuard no_grad;
  return strand::softmax(Var(x), dim).value();
}

}  // namespace ops
}  // namespace strand
