// Matrix multiply: argument checks and dispatch, the CPU adapter with its
// registration (the CUDA one, on cuBLAS: ops/cuda/matmul.cpp), and the differentiable function with
// its gradient rule.
#include "ops/matmul.h"

#include "autograd/attribution.h"
#include "core/dtype_dispatch.h"
#include "kernels/cpu/gemm_bf16.h"
#include "tensor/argument_checks.h"
#include "tensor/cpu/gemm_precision.h"

namespace strand {

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_floating("matmul", a);
  check_floating("matmul", b);
  check_rank("matmul", "left operand", a, 2);
  check_rank("matmul", "right operand", b, 2);
  check_same_dtype("matmul", a, b);
  check_same_device("matmul", a, b);
  STRAND_CHECK(a.size(1) == b.size(0), "matmul: inner dimensions differ: {} @ {}", a.describe(),
               b.describe());
  Tensor out = Tensor::empty({a.size(0), b.size(1)}, a.dtype(), a.device());
  dispatch<MatmulOp>(a.device(), a, b, out);
  return out;
}

}  // namespace ops

// ---- CPU adapter: Tensors to kernels/cpu/gemm.h -------------------------------------------
namespace {

// Float32 operands at the process's precision (bfloat16 under --precision bf16).
void matmul_cpu(const Tensor& a, const Tensor& b, Tensor& out) {
  const kernels::cpu::GemmPrecision precision = cpu_gemm_precision();
  dispatch_floating(a.dtype(), "matmul", [&]<typename T>() {
    kernels::cpu::gemm<T>(precision, a.size(0), b.size(1), a.size(1), a.data<T>(), a.strides()[0],
                          a.strides()[1], b.data<T>(), b.strides()[0], b.strides()[1], T(0),
                          out.data<T>(), b.size(1));
  });
}

}  // namespace

STRAND_REGISTER_KERNELS(matmul_cpu) {
  OpKernels<MatmulOp>::register_kernel(DeviceType::kCPU, matmul_cpu);
}

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

Var matmul(const Var& a, const Var& b) {
  const Tensor av = a.value(), bv = b.value();
  const bool a_grad = a.requires_grad(), b_grad = b.requires_grad();
  // Linear in a constant operand (a Dense layer's weights); of two input-dependent operands it
  // has no DeepLIFT rule (autograd/attribution.h).
  const AttributionPass* pass = attribution_pass();
  STRAND_CHECK(
      pass == nullptr || pass->phase() != AttributionPhase::kReferences || !(a_grad && b_grad),
      "DeepLIFT has no rule for 'matmul' of two values that both depend on the input");
  return make_result(ops::matmul(av, bv), "matmul", {a, b}, [=](const Tensor& g) {
    // dA = G @ B^T, dB = A^T @ G (transposed views; the kernel reads strides)
    return std::vector<Tensor>{a_grad ? ops::matmul(g, bv.transpose(0, 1)) : Tensor(),
                               b_grad ? ops::matmul(av.transpose(0, 1), g) : Tensor()};
  });
}

}  // namespace strand
