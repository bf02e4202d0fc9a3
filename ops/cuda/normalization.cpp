// Batch normalisation: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rules are in ops/normalization.cpp.
#include "ops/normalization.h"

#include <algorithm>

#include "kernels/cuda/normalization.h"
#include "tensor/cuda/adapter_util.h"

namespace strand {

// ---- CUDA adapters: Tensors to kernels/cuda/normalization.cu -----------------------------------
namespace {

namespace k = kernels::cuda;
using cuda::optional_mut;
using cuda::stream_of;

// The float64 scratch memory of the per-channel sums, on x's device.
Tensor batch_norm_workspace(const kernels::BatchNormGeometry& g, const Tensor& x) {
  return Tensor::empty({std::max<int64_t>(k::batch_norm_workspace(g), 1)}, DType::kFloat64,
                       x.device());
}

void batch_norm_forward_cuda(const Tensor& x, const Tensor& weight, const Tensor& bias,
                             const BatchNormOptions& options, Tensor& running_mean,
                             Tensor& running_var, Tensor& out, Tensor& mean, Tensor& invstd) {
  const auto g = batch_norm_geometry(x.shape());
  if (options.training) {
    const Tensor workspace = batch_norm_workspace(g, x);
    k::batch_norm_forward_training(
        x.dtype(), g, x.raw_data(), weight.raw_data(), bias.raw_data(), options.momentum,
        options.eps, options.relu, running_mean.raw_data(), running_var.raw_data(), out.raw_data(),
        mean.raw_data(), invstd.raw_data(), workspace.data<double>(), stream_of(x));
  } else {
    k::batch_norm_forward_inference(x.dtype(), g, x.raw_data(), weight.raw_data(), bias.raw_data(),
                                    running_mean.raw_data(), running_var.raw_data(), options.eps,
                                    options.relu, out.raw_data(), mean.raw_data(),
                                    invstd.raw_data(), stream_of(x));
  }
}

void batch_norm_backward_cuda(const Tensor& grad_out, const Tensor& x, const Tensor& out,
                              const Tensor& weight, const Tensor& mean, const Tensor& invstd,
                              const BatchNormOptions& options, Tensor& grad_x, Tensor& grad_weight,
                              Tensor& grad_bias) {
  const auto g = batch_norm_geometry(x.shape());
  const Tensor workspace = batch_norm_workspace(g, x);
  k::batch_norm_backward(x.dtype(), g, grad_out.raw_data(), x.raw_data(), optional_mut(out),
                         weight.raw_data(), mean.raw_data(), invstd.raw_data(), options.training,
                         options.relu, grad_x.raw_data(), grad_weight.raw_data(),
                         grad_bias.raw_data(), workspace.data<double>(), stream_of(x));
}

}  // namespace

STRAND_REGISTER_KERNELS(normalization_cuda) {
  constexpr DeviceType kCuda = DeviceType::kCUDA;
  OpKernels<BatchNormForwardOp>::register_kernel(kCuda, batch_norm_forward_cuda);
  OpKernels<BatchNormBackwardOp>::register_kernel(kCuda, batch_norm_backward_cuda);
}

}  // namespace strand
