// Dropout: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rules are in ops/dropout.cpp.
#include "ops/dropout.h"

#include "kernels/cuda/dropout.h"
#include "tensor/cuda/adapter_util.h"

namespace strand {

// ---- CUDA adapter: Tensors to kernels/cuda/dropout.cu ---------------------------------------
namespace {

void dropout_cuda(const Tensor& x, const DropoutMask& mask, const Tensor& step, Tensor& out) {
  kernels::cuda::apply_dropout_mask(x.dtype(), mask,
                                    step.defined() ? step.data<int64_t>() : nullptr, x.numel(),
                                    x.raw_data(), out.raw_data(), cuda::stream_of(x));
}

}  // namespace

STRAND_REGISTER_KERNELS(dropout_cuda) {
  OpKernels<DropoutOp>::register_kernel(DeviceType::kCUDA, dropout_cuda);
}

}  // namespace strand
