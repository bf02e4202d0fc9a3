// Losses: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rules are in ops/loss.cpp.
#include "ops/loss.h"

#include "kernels/cuda/loss.h"
#include "tensor/cuda/adapter_util.h"

namespace strand {

// ---- CUDA adapters: Tensors to kernels/cuda/loss.cu --------------------------------------------
namespace {

namespace k = kernels::cuda;
using cuda::stream_of;

void bce_cuda(const Tensor& logits, const Tensor& targets, Tensor& out) {
  const Tensor x = logits.contiguous(), y = targets.contiguous();
  k::bce_with_logits_forward(x.dtype(), x.numel(), x.raw_data(), y.raw_data(), out.raw_data(),
                             stream_of(x));
}

void bce_backward_cuda(const Tensor& grad_out, const Tensor& logits, const Tensor& targets,
                       Tensor& grad) {
  const Tensor g = grad_out.contiguous(), x = logits.contiguous(), y = targets.contiguous();
  k::bce_with_logits_backward(x.dtype(), x.numel(), g.raw_data(), x.raw_data(), y.raw_data(),
                              grad.raw_data(), stream_of(x));
}

}  // namespace

STRAND_REGISTER_KERNELS(loss_cuda) {
  OpKernels<BceWithLogitsOp>::register_kernel(DeviceType::kCUDA, bce_cuda);
  OpKernels<BceWithLogitsBackwardOp>::register_kernel(DeviceType::kCUDA, bce_backward_cuda);
}

}  // namespace strand
