// CPU kernels for sum over dimensions, max with argmax, and the max backward scatter.
#include <algorithm>
#include <vector>

#include "core/dtype_dispatch.h"
#include "kernels/cpu/reduce.h"
#include "tensor/cpu/cpu_kernel_registration.h"
#include "tensor/op_declarations.h"
#include "tensor/reduction_layout.h"

namespace strand {
namespace {

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

void register_cpu_reduction_kernels() {
  OpKernels<SumOp>::register_kernel(DeviceType::kCPU, sum_cpu);
  OpKernels<MaxOp>::register_kernel(DeviceType::kCPU, max_cpu);
  OpKernels<MaxBackwardOp>::register_kernel(DeviceType::kCPU, max_backward_cpu);
}

}  // namespace strand
