// CPU kernels for binary cross-entropy from logits.
#include "core/dtype_dispatch.h"
#include "kernels/cpu/bce.h"
#include "tensor/cpu/cpu_kernel_registration.h"
#include "tensor/op_declarations.h"

namespace strand {
namespace {

void bce_with_logits_cpu(const Tensor& logits, const Tensor& targets, Tensor& out) {
  const Tensor x = logits.contiguous(), y = targets.contiguous();
  dispatch_floating(x.dtype(), "bce_with_logits", [&]<typename T>() {
    kernels::cpu::bce_with_logits_forward<T>(x.numel(), x.data<T>(), y.data<T>(), out.data<T>());
  });
}

void bce_with_logits_backward_cpu(const Tensor& grad_out, const Tensor& logits,
                                  const Tensor& targets, Tensor& grad_logits) {
  const Tensor g = grad_out.contiguous(), x = logits.contiguous(), y = targets.contiguous();
  dispatch_floating(x.dtype(), "bce_with_logits_backward", [&]<typename T>() {
    kernels::cpu::bce_with_logits_backward<T>(x.numel(), g.data<T>(), x.data<T>(), y.data<T>(),
                                              grad_logits.data<T>());
  });
}

}  // namespace

void register_cpu_loss_kernels() {
  OpKernels<BceWithLogitsOp>::register_kernel(DeviceType::kCPU, bce_with_logits_cpu);
  OpKernels<BceWithLogitsBackwardOp>::register_kernel(DeviceType::kCPU,
                                                      bce_with_logits_backward_cpu);
}

}  // namespace strand
