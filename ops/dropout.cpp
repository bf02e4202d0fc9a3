// Dropout: argument checks and dispatch, the CPU adapters with their registration (the CUDA ones:
// ops/cuda/dropout.cpp), and the differentiable function with its gradient rule.
#include "ops/dropout.h"

#include "core/dtype_dispatch.h"
#include "kernels/cpu/dropout.h"
#include "tensor/argument_checks.h"

namespace strand {

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

Tensor dropout(const Tensor& x, const DropoutMask& mask, const Tensor& step) {
  check_floating("dropout", x);
  STRAND_CHECK(mask.rate >= 0.0 && mask.rate < 1.0, "dropout: rate must be in [0, 1), got {}",
               mask.rate);
  STRAND_CHECK(
      !step.defined() ||
          (step.dtype() == DType::kInt64 && step.numel() == 1 && step.device() == x.device()),
      "dropout: the step must be one int64 on {}, got {}", x.device().to_string(), step.describe());
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  dispatch<DropoutOp>(x.device(), x.contiguous(), mask, step, out);
  return out;
}

}  // namespace ops

// ---- CPU adapter: Tensors to kernels/cpu/dropout.h ------------------------------------------
namespace {

void dropout_cpu(const Tensor& x, const DropoutMask& mask, const Tensor& step, Tensor& out) {
  DropoutMask now = mask;
  if (step.defined()) now.step = static_cast<uint64_t>(step.data<int64_t>()[0]);
  dispatch_floating(x.dtype(), "dropout", [&]<typename T>() {
    kernels::cpu::apply_dropout_mask<T>(now, x.numel(), x.data<T>(), out.data<T>());
  });
}

}  // namespace

STRAND_REGISTER_KERNELS(dropout_cpu) {
  OpKernels<DropoutOp>::register_kernel(DeviceType::kCPU, dropout_cpu);
}

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

Var dropout(const Var& x, const DropoutMask& mask, const Tensor& step) {
  if (mask.rate == 0.0) return x;
  return make_result(
      ops::dropout(x.value(), mask, step), "dropout", {x},
      [mask, step](const Tensor& g) { return std::vector<Tensor>{ops::dropout(g, mask, step)}; });
}

}  // namespace strand
