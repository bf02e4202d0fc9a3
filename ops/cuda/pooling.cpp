// 1-D pooling: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rules are in ops/pooling.cpp.
#include "ops/pooling.h"

#include "kernels/cuda/pooling.h"
#include "tensor/cuda/adapter_util.h"

namespace strand {

// ---- CUDA adapters: Tensors to kernels/cuda/pooling.cu -----------------------------------------
namespace {

namespace k = kernels::cuda;
using cuda::stream_of;

void max_pool1d_cuda(const Tensor& x, const Pool1DParams& params, Tensor& out, Tensor& argmax) {
  k::max_pool1d_forward(x.dtype(), pool_geometry(x.shape(), params), x.raw_data(), out.raw_data(),
                        argmax.data<int64_t>(), stream_of(x));
}

void max_pool1d_backward_cuda(const Tensor& grad_out, const Tensor& argmax,
                              const Pool1DParams& params, Tensor& grad_x) {
  k::max_pool1d_backward(grad_x.dtype(), pool_geometry(grad_x.shape(), params), grad_out.raw_data(),
                         argmax.data<int64_t>(), grad_x.raw_data(), stream_of(grad_x));
}

void avg_pool1d_cuda(const Tensor& x, const Pool1DParams& params, Tensor& out) {
  k::avg_pool1d_forward(x.dtype(), pool_geometry(x.shape(), params), x.raw_data(), out.raw_data(),
                        stream_of(x));
}

void avg_pool1d_backward_cuda(const Tensor& grad_out, const Pool1DParams& params, Tensor& grad_x) {
  k::avg_pool1d_backward(grad_x.dtype(), pool_geometry(grad_x.shape(), params), grad_out.raw_data(),
                         grad_x.raw_data(), stream_of(grad_x));
}

}  // namespace

STRAND_REGISTER_KERNELS(pooling_cuda) {
  constexpr DeviceType kCuda = DeviceType::kCUDA;
  OpKernels<MaxPool1DOp>::register_kernel(kCuda, max_pool1d_cuda);
  OpKernels<MaxPool1DBackwardOp>::register_kernel(kCuda, max_pool1d_backward_cuda);
  OpKernels<AvgPool1DOp>::register_kernel(kCuda, avg_pool1d_cuda);
  OpKernels<AvgPool1DBackwardOp>::register_kernel(kCuda, avg_pool1d_backward_cuda);
}

}  // namespace strand
