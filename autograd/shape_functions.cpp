// Differentiable shape ops and matmul.
#include "autograd/functions.h"
#include "tensor/ops.h"

namespace strand {

Var matmul(const Var& a, const Var& b) {
  const Tensor av = a.value(), bv = b.value();
  const bool a_grad = a.requires_grad(), b_grad = b.requires_grad();
  return make_result(ops::matmul(av, bv), "matmul", {a, b}, [=](const Tensor& g) {
    // dA = G @ B^T, dB = A^T @ G (transposed views; the kernel reads strides)
    return std::vector<Tensor>{a_grad ? ops::matmul(g, bv.transpose(0, 1)) : Tensor(),
                               b_grad ? ops::matmul(av.transpose(0, 1), g) : Tensor()};
  });
}

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

}  // namespace strand
