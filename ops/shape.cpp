// Shape ops: argument checks, the copies concat needs, and the differentiable functions with
// their gradient rules.
#include "ops/shape.h"

#include "tensor/argument_checks.h"

namespace strand {

// ---- On tensors ------------------------------------------------------------------------------
namespace ops {

Tensor concat(const std::vector<Tensor>& tensors, int64_t dim) {
  STRAND_CHECK(!tensors.empty(), "concat: no tensors");
  const Tensor& first = tensors.front();
  dim = normalize_dim(dim, first.dim(), "concat");
  Shape shape = first.shape();
  shape[dim] = 0;
  for (const Tensor& t : tensors) {
    check_same_dtype("concat", first, t);
    check_same_device("concat", first, t);
    STRAND_CHECK(t.dim() == first.dim(), "concat: ranks differ: {} and {}", first.describe(),
                 t.describe());
    for (int64_t d = 0; d < t.dim(); ++d) {
      STRAND_CHECK(d == dim || t.shape()[d] == first.shape()[d],
                   "concat along {}: {} and {} differ in dimension {}", dim, first.describe(),
                   t.describe(), d);
    }
    shape[dim] += t.shape()[dim];
  }
  Tensor out = Tensor::empty(shape, first.dtype(), first.device());
  int64_t start = 0;
  for (const Tensor& t : tensors) {
    Tensor part = out.slice(dim, start, start + t.shape()[dim]);
    part.copy_(t);
    start += t.shape()[dim];
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  dim = normalize_dim(dim, x.dim(), "chunk");
  STRAND_CHECK(chunks > 0 && x.shape()[dim] % chunks == 0,
               "chunk: dimension {} of {} (extent {}) does not split into {} equal parts", dim,
               x.describe(), x.shape()[dim], chunks);
  const int64_t step = x.shape()[dim] / chunks;
  std::vector<Tensor> parts;
  for (int64_t i = 0; i < chunks; ++i) parts.push_back(x.slice(dim, i * step, (i + 1) * step));
  return parts;
}

}  // namespace ops

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

Var reshape(const Var& x, Shape shape) {
  const Shape original = x.shape();
  return make_result(x.value().reshape(std::move(shape)), "reshape", {x},
                     [=](const Tensor& g) { return std::vector<Tensor>{g.reshape(original)}; });
}

Var transpose(const Var& x, int64_t dim0, int64_t dim1) {
  return make_result(x.value().transpose(dim0, dim1), "transpose", {x}, [=](const Tensor& g) {
    return std::vector<Tensor>{g.transpose(dim0, dim1).contiguous()};
  });
}

Var slice(const Var& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  const Tensor xv = x.value();
  Tensor view = xv.slice(dim, start, end, step);
  // Where the slice sits inside x, so the gradient can be written into the same place.
  return make_result(view, "slice", {x}, [=](const Tensor& g) {
    Tensor grad = Tensor::zeros(xv.shape(), g.dtype(), g.device());
    Tensor target = grad.slice(dim, start, end, step);
    target.copy_(g);
    return std::vector<Tensor>{grad};
  });
}

Var concat(const std::vector<Var>& xs, int64_t dim) {
  std::vector<Tensor> values;
  std::vector<int64_t> extents;
  for (const Var& x : xs) {
    values.push_back(x.value());
    extents.push_back(x.size(dim));
  }
  Tensor out = ops::concat(values, dim);
  return make_result(out, "concat", xs, [=](const Tensor& g) {
    std::vector<Tensor> grads;
    int64_t start = 0;
    for (int64_t extent : extents) {
      grads.push_back(g.slice(dim, start, start + extent).contiguous());
      start += extent;
    }
    return grads;
  });
}

std::vector<Var> chunk(const Var& x, int64_t chunks, int64_t dim) {
  STRAND_CHECK(chunks > 0 && x.size(dim) % chunks == 0,
               "chunk: dimension {} of {} (extent {}) does not split into {} equal parts", dim,
               x.value().describe(), x.size(dim), chunks);
  const int64_t step = x.size(dim) / chunks;
  std::vector<Var> parts;
  for (int64_t i = 0; i < chunks; ++i) parts.push_back(slice(x, dim, i * step, (i + 1) * step));
  return parts;
}

Var crop1d(const Var& x, int64_t length) {
  STRAND_CHECK(x.dim() == 3, "crop1d: expected (B, C, L), got {}", x.value().describe());
  STRAND_CHECK(length >= 1 && length <= x.size(2),
               "crop1d: cannot crop {} to length {} (at least 1, at most its length)",
               x.value().describe(), length);
  const int64_t start = (x.size(2) - length) / 2;
  return slice(x, 2, start, start + length);
}

}  // namespace strand
