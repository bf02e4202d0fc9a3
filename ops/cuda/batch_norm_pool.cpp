// BatchNorm -> ReLU -> MaxPool1D: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rule are in ops/batch_norm_pool.cpp.
#include "ops/batch_norm_pool.h"

#include <algorithm>

#include "kernels/cuda/batch_norm_pool.h"
#include "kernels/cuda/normalization.h"
#include "tensor/cuda/adapter_util.h"

namespace strand {
namespace {

namespace k = kernels::cuda;
using cuda::stream_of;

// float64 scratch memory of `elements` (at least one), on x's device.
Tensor workspace_of(int64_t elements, const Tensor& x) {
  return Tensor::empty({std::max<int64_t>(elements, 1)}, DType::kFloat64, x.device());
}

void batch_norm_relu_max_pool_cuda(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                   const BatchNormOptions& options, const Pool1DParams& pool,
                                   Tensor& running_mean, Tensor& running_var, Tensor& out,
                                   Tensor& argmax, Tensor& mean, Tensor& invstd) {
  const auto g = batch_norm_geometry(x.shape());
  const auto p = pool_geometry(x.shape(), pool);
  const cudaStream_t s = stream_of(x);
  if (options.training) {
    const Tensor workspace = workspace_of(k::batch_norm_workspace(g), x);
    k::batch_norm_training_statistics(
        x.dtype(), g, x.raw_data(), options.momentum, options.eps, running_mean.raw_data(),
        running_var.raw_data(), mean.raw_data(), invstd.raw_data(), workspace.data<double>(), s);
  } else {
    k::batch_norm_inference_statistics(x.dtype(), g.channels, running_mean.raw_data(),
                                       running_var.raw_data(), options.eps, mean.raw_data(),
                                       invstd.raw_data(), s);
  }
  k::batch_norm_relu_max_pool_forward(x.dtype(), g, p, x.raw_data(), weight.raw_data(),
                                      bias.raw_data(), mean.raw_data(), invstd.raw_data(),
                                      out.raw_data(), argmax.data<int64_t>(), s);
}

void batch_norm_relu_max_pool_backward_cuda(const Tensor& grad_out, const Tensor& x,
                                            const Tensor& out, const Tensor& argmax,
                                            const Tensor& weight, const Tensor& mean,
                                            const Tensor& invstd, const BatchNormOptions& options,
                                            const Pool1DParams& pool, Tensor& grad_x,
                                            Tensor& grad_weight, Tensor& grad_bias) {
  const auto g = batch_norm_geometry(x.shape());
  const auto p = pool_geometry(x.shape(), pool);
  const Tensor workspace = workspace_of(k::batch_norm_relu_max_pool_workspace(g, p), x);
  k::batch_norm_relu_max_pool_backward(
      x.dtype(), g, p, grad_out.raw_data(), x.raw_data(), out.raw_data(), argmax.data<int64_t>(),
      weight.raw_data(), mean.raw_data(), invstd.raw_data(), options.training, grad_x.raw_data(),
      grad_weight.raw_data(), grad_bias.raw_data(), workspace.data<double>(), stream_of(x));
}

}  // namespace

STRAND_REGISTER_KERNELS(batch_norm_pool_cuda) {
  constexpr DeviceType kCuda = DeviceType::kCUDA;
  OpKernels<BatchNormReluMaxPoolOp>::register_kernel(kCuda, batch_norm_relu_max_pool_cuda);
  OpKernels<BatchNormReluMaxPoolBackwardOp>::register_kernel(
      kCuda, batch_norm_relu_max_pool_backward_cuda);
}

}  // namespace strand
