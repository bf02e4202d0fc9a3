// Differentiable reductions: sum, mean, max.
#include "autograd/functions.h"
#include "tensor/ops.h"

namespace strand {

namespace {
// The reduced gradient reshaped so it broadcasts against the input (reduced dims as 1).
Tensor keepdim_view(const Tensor& g, const Shape& input_shape, std::vector<int64_t> dims) {
  const int64_t rank = static_cast<int64_t>(input_shape.size());
  if (dims.empty()) {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  Shape kept = input_shape;
  for (int64_t d : dims) kept[normalize_dim(d, rank, "sum")] = 1;
  return g.reshape(kept);
}
}  // namespace

Var sum(const Var& x, std::vector<int64_t> dims, bool keepdim) {
  const Shape shape = x.shape();
  return make_result(ops::sum(x.value(), dims, keepdim), "sum", {x}, [=](const Tensor& g) {
    return std::vector<Tensor>{keepdim_view(g, shape, dims).expand(shape).contiguous()};
  });
}

Var mean(const Var& x, std::vector<int64_t> dims, bool keepdim) {
  const Shape shape = x.shape();
  int64_t count = 1;
  if (dims.empty()) {
    count = numel(shape);
  } else {
    for (int64_t d : dims)
      count *= shape[normalize_dim(d, static_cast<int64_t>(shape.size()), "mean")];
  }
  const double scale = 1.0 / static_cast<double>(count);
  return make_result(ops::mean(x.value(), dims, keepdim), "mean", {x}, [=](const Tensor& g) {
    return std::vector<Tensor>{ops::affine(keepdim_view(g, shape, dims).expand(shape), scale, 0.0)};
  });
}

std::pair<Var, Tensor> max(const Var& x, int64_t dim, bool keepdim) {
  const Shape shape = x.shape();
  auto [values, indices] = ops::max(x.value(), dim, keepdim);
  Var result = make_result(values, "max", {x}, [=, idx = indices](const Tensor& g) {
    return std::vector<Tensor>{ops::max_backward(g, idx, dim, shape)};
  });
  return {result, indices};
}

}  // namespace strand
