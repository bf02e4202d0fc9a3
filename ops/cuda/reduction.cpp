// Reductions: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rules are in ops/reduction.cpp.
#include "ops/reduction.h"

#include <vector>

#include "kernels/cuda/reduction.h"
#include "tensor/cuda/adapter_util.h"
#include "tensor/reduction_layout.h"

namespace strand {

// ---- CUDA adapters: Tensors to kernels/cuda/reduction.cu ---------------------------------------
namespace {

namespace k = kernels::cuda;
using cuda::space_of;
using cuda::stream_of;
using cuda::strides_of;

// A float64 scratch buffer of n elements on `device` for a split reduction (undefined: none).
Tensor reduction_workspace(int64_t n, Device device) {
  return n > 0 ? Tensor::empty({n}, DType::kFloat64, device) : Tensor();
}

void sum_cuda(const Tensor& x, const std::vector<int64_t>& dims, Tensor& out) {
  const ReductionLayout l = reduction_layout(x, dims);
  const auto outer = space_of(l.outer_shape, "sum"), inner = space_of(l.inner_shape, "sum");
  const auto outer_strides = strides_of(l.outer_strides);
  const auto inner_strides = strides_of(l.inner_strides);
  const Tensor workspace =
      reduction_workspace(k::sum_workspace(outer, outer_strides, inner, inner_strides), x.device());
  k::sum(x.dtype(), x.raw_data(), outer, outer_strides, inner, inner_strides, out.raw_data(),
         workspace.defined() ? workspace.data<double>() : nullptr, stream_of(x));
}

void sum_of_squares_cuda(const Tensor& x, Tensor& out) {
  const Tensor workspace = reduction_workspace(k::sum_of_squares_workspace(x.numel()), x.device());
  k::sum_of_squares(x.dtype(), x.numel(), x.raw_data(), out.data<double>(),
                    workspace.defined() ? workspace.data<double>() : nullptr, stream_of(x));
}

void max_cuda(const Tensor& x, int64_t dim, Tensor& values, Tensor& indices) {
  Shape other = x.shape();
  other[dim] = 1;
  k::max(x.dtype(), x.raw_data(), space_of(other, "max"), strides_of(x.strides()), x.shape()[dim],
         x.strides()[dim], values.raw_data(), indices.data<int64_t>(), stream_of(x));
}

void max_backward_cuda(const Tensor& grad_out, const Tensor& indices, int64_t dim,
                       Tensor& grad_in) {
  Shape other = grad_in.shape();
  other[dim] = 1;
  const Tensor grad = grad_out.contiguous();
  const Tensor index = indices.contiguous();
  k::max_backward(grad_in.dtype(), grad.raw_data(), index.data<int64_t>(),
                  space_of(other, "max_backward"), strides_of(grad_in.strides()),
                  grad_in.strides()[dim], grad_in.raw_data(), stream_of(grad_in));
}

}  // namespace

STRAND_REGISTER_KERNELS(reduction_cuda) {
  constexpr DeviceType kCuda = DeviceType::kCUDA;
  OpKernels<SumOp>::register_kernel(kCuda, sum_cuda);
  OpKernels<MaxOp>::register_kernel(kCuda, max_cuda);
  OpKernels<MaxBackwardOp>::register_kernel(kCuda, max_backward_cuda);
  OpKernels<SumOfSquaresOp>::register_kernel(kCuda, sum_of_squares_cuda);
}

}  // namespace strand
