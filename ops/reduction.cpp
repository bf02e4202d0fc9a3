// Reductions: argument checks and dispatch, the CPU adapters with their
// registration (the CUDA ones: ops/cuda/reduction.cpp), and the differentiable functions with their
// gradient rules.
#include "ops/reduction.h"

#include <algorithm>
#include <vector>

#include "autograd/attribution.h"
#include "core/dtype_dispatch.h"
#include "kernels/cpu/reduction.h"
#include "ops/elementwise.h"
#include "tensor/argument_checks.h"
#include "tensor/reduction_layout.h"

namespace strand {

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

namespace {
std::vector<int64_t> normalize_dims(std::vector<int64_t> dims, int64_t rank, const char* op) {
  if (dims.empty()) {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  for (int64_t& d : dims) d = normalize_dim(d, rank, op);
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

Shape reduced_shape(const Shape& shape, const std::vector<int64_t>& dims, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) {
      out.push_back(shape[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}
}  // namespace

Tensor sum(const Tensor& x, std::vector<int64_t> dims, bool keepdim) {
  check_floating("sum", x);
  dims = normalize_dims(std::move(dims), x.dim(), "sum");
  Tensor out = Tensor::empty(reduced_shape(x.shape(), dims, true), x.dtype(), x.device());
  dispatch<SumOp>(x.device(), x, dims, out);
  return keepdim ? out : out.reshape(reduced_shape(x.shape(), dims, false));
}

Tensor mean(const Tensor& x, std::vector<int64_t> dims, bool keepdim) {
  dims = normalize_dims(std::move(dims), x.dim(), "mean");
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape()[d];
  return affine(sum(x, dims, keepdim), 1.0 / static_cast<double>(count), 0.0);
}

std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  check_floating("max", x);
  dim = normalize_dim(dim, x.dim(), "max");
  STRAND_CHECK(x.shape()[dim] > 0, "max: dimension {} of {} is empty", dim, x.describe());
  Shape kept = x.shape();
  kept[dim] = 1;
  Tensor values = Tensor::empty(kept, x.dtype(), x.device());
  Tensor indices = Tensor::empty(kept, DType::kInt64, x.device());
  dispatch<MaxOp>(x.device(), x, dim, values, indices);
  if (!keepdim) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  return {values, indices};
}

Tensor max_backward(const Tensor& grad_out, const Tensor& indices, int64_t dim,
                    const Shape& input_shape) {
  dim = normalize_dim(dim, static_cast<int64_t>(input_shape.size()), "max_backward");
  Shape kept = input_shape;
  kept[dim] = 1;
  Tensor grad_in = Tensor::zeros(input_shape, grad_out.dtype(), grad_out.device());
  dispatch<MaxBackwardOp>(grad_out.device(), grad_out.reshape(kept), indices.reshape(kept), dim,
                          grad_in);
  return grad_in;
}

Tensor sum_of_squares(const Tensor& x) {
  check_floating("sum_of_squares", x);
  Tensor out = Tensor::empty({}, DType::kFloat64, x.device());
  dispatch<SumOfSquaresOp>(x.device(), x.contiguous(), out);
  return out;
}

Tensor sum_to_shape(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && grad.shape()[d] != 1)) dims.push_back(d);
  }
  return sum(grad, dims, true).reshape(shape);
}

}  // namespace ops

// ---- CPU adapters: Tensors to kernels/cpu/reduction.h ------------------------------------------
namespace {

// The float64 copy, its squares and their sum: the composition clip_grad_norm always used on
// the CPU, so CPU runs keep their bits (the GPU kernel reads x as it is).
void sum_of_squares_cpu(const Tensor& x, Tensor& out) {
  out.copy_(ops::sum(ops::square(x.to(DType::kFloat64))));
}

void sum_cpu(const Tensor& x, const std::vector<int64_t>& dims, Tensor& out) {
  const ReductionLayout l = reduction_layout(x, dims);
  dispatch_floating(x.dtype(), "sum", [&]<typename T>() {
    kernels::cpu::sum_reduce<T>(static_cast<int>(l.outer_shape.size()), l.outer_shape.data(),
                                l.outer_strides.data(), static_cast<int>(l.inner_shape.size()),
                                l.inner_shape.data(), l.inner_strides.data(), x.data<T>(),
                                out.data<T>());
  });
}

// Element offsets into x of the first element of every line along `dim`, in row-major order
// of the other dimensions.
std::vector<int64_t> line_offsets(const Tensor& x, int64_t dim) {
  Shape other_shape = x.shape();
  other_shape[dim] = 1;
  std::vector<int64_t> offsets(static_cast<size_t>(numel(other_shape)));
  for (size_t line = 0; line < offsets.size(); ++line) {
    int64_t rest = static_cast<int64_t>(line);
    int64_t offset = 0;
    for (int64_t d = x.dim() - 1; d >= 0; --d) {
      offset += (rest % other_shape[d]) * x.strides()[d];
      rest /= other_shape[d];
    }
    offsets[line] = offset;
  }
  return offsets;
}

void max_cpu(const Tensor& x, int64_t dim, Tensor& values, Tensor& indices) {
  const std::vector<int64_t> offsets = line_offsets(x, dim);
  dispatch_floating(x.dtype(), "max", [&]<typename T>() {
    kernels::cpu::max_reduce<T>(static_cast<int64_t>(offsets.size()), offsets.data(),
                                x.shape()[dim], x.strides()[dim], x.data<T>(), values.data<T>(),
                                indices.data<int64_t>());
  });
}

void max_backward_cpu(const Tensor& grad_out, const Tensor& indices, int64_t dim, Tensor& grad_in) {
  const std::vector<int64_t> offsets = line_offsets(grad_in, dim);
  const Tensor grad = grad_out.contiguous();
  const Tensor index = indices.contiguous();
  dispatch_floating(grad_in.dtype(), "max_backward", [&]<typename T>() {
    const T* g = grad.data<T>();
    const int64_t* idx = index.data<int64_t>();
    T* gi = grad_in.data<T>();
    const int64_t stride = grad_in.strides()[dim];
    for (size_t line = 0; line < offsets.size(); ++line) {
      gi[offsets[line] + idx[line] * stride] += g[line];
    }
  });
}

}  // namespace

STRAND_REGISTER_KERNELS(reduction_cpu) {
  OpKernels<SumOp>::register_kernel(DeviceType::kCPU, sum_cpu);
  OpKernels<MaxOp>::register_kernel(DeviceType::kCPU, max_cpu);
  OpKernels<MaxBackwardOp>::register_kernel(DeviceType::kCPU, max_backward_cpu);
  OpKernels<SumOfSquaresOp>::register_kernel(DeviceType::kCPU, sum_of_squares_cpu);
}

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

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
  if (AttributionPass* pass = attribution_pass()) {
    // DeepLIFT: max pooling's rule (ops/pooling.cpp) over the whole dimension.
    if (pass->phase() == AttributionPhase::kInputs) {
      pass->save("max", {x.value(), values, indices});
    } else {
      const std::vector<Tensor> input = pass->take("max");
      STRAND_CHECK(input[0].shape() == shape,
                   "DeepLIFT: 'max' saw {} on the inputs and {} on the references",
                   input[0].describe(), x.value().describe());
      const Tensor dx = ops::sub(input[0], x.value());
      const Tensor y_in = input[1], indices_in = input[2];
      Var result =
          make_result(values, "max", {x}, [=, y_ref = values, idx_ref = indices](const Tensor& g) {
            const Tensor top = ops::maximum(y_in, y_ref);
            const Tensor routed = ops::add(
                ops::max_backward(ops::mul(g, ops::sub(top, y_ref)), indices_in, dim, shape),
                ops::max_backward(ops::mul(g, ops::sub(y_in, top)), idx_ref, dim, shape));
            const Tensor gradient = ops::max_backward(g, indices_in, dim, shape);
            return std::vector<Tensor>{ops::divide_where_changed(routed, dx, gradient)};
          });
      return {result, indices};
    }
  }
  Var result = make_result(values, "max", {x}, [=, idx = indices](const Tensor& g) {
    return std::vector<Tensor>{ops::max_backward(g, idx, dim, shape)};
  });
  return {result, indices};
}

Var global_max_pool1d(const Var& x) {
  STRAND_CHECK(x.dim() == 3, "global_max_pool1d: expected (B, C, L), got {}", x.value().describe());
  return max(x, 2, false).first;
}

}  // namespace strand
