// Matrix multiply: argument checks and dispatch, the CPU and CUDA (cuBLAS) adapters with their
// registration, and the differentiable function with its gradient rule.
#include "ops/matmul.h"

#include "autograd/attribution.h"
#include "core/dtype_dispatch.h"
#include "kernels/cpu/gemm.h"
#include "tensor/argument_checks.h"

#ifdef STRAND_WITH_CUDA
#include <algorithm>
#include <climits>

#include "kernels/cuda/check.h"
#include "tensor/cuda/adapter_util.h"
#endif

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

void matmul_cpu(const Tensor& a, const Tensor& b, Tensor& out) {
  dispatch_floating(a.dtype(), "matmul", [&]<typename T>() {
    kernels::cpu::gemm<T>(a.size(0), b.size(1), a.size(1), a.data<T>(), a.strides()[0],
                          a.strides()[1], b.data<T>(), b.strides()[0], b.strides()[1], T(0),
                          out.data<T>(), b.size(1));
  });
}

}  // namespace

STRAND_REGISTER_KERNELS(matmul_cpu) {
  OpKernels<MatmulOp>::register_kernel(DeviceType::kCPU, matmul_cpu);
}

// ---- CUDA adapter: Tensors to cuBLAS ---------------------------------------------------------
#ifdef STRAND_WITH_CUDA
namespace {

// A row-major (rows x cols) operand addressed with strides (s0, s1), seen by column-major
// cuBLAS as its transpose: op N with ld s0 when rows are contiguous, op T with ld s1 when
// columns are; anything else (broadcast, overlapping or gapped in both) is copied first.
struct BlasView {
  bool ok = false;
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 1;
};
BlasView blas_view(int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  const int64_t r = std::max<int64_t>(rows, 1), c = std::max<int64_t>(cols, 1);
  if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= c)) {
    return {true, CUBLAS_OP_N, rows == 1 ? c : s0};
  }
  if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= r)) {
    return {true, CUBLAS_OP_T, cols == 1 ? r : s1};
  }
  return {};
}

void matmul_cuda(const Tensor& a_in, const Tensor& b_in, Tensor& out) {
  const int64_t m = a_in.size(0), kdim = a_in.size(1), n = b_in.size(1);
  if (m == 0 || n == 0) return;
  if (kdim == 0) {
    out.fill_(0.0);
    return;
  }
  STRAND_CHECK(m < INT_MAX && n < INT_MAX && kdim < INT_MAX,
               "matmul (CUDA): extents ({}, {}, {}) exceed cuBLAS's int range", m, kdim, n);
  Tensor a = a_in, b = b_in;
  BlasView av = blas_view(m, kdim, a.strides()[0], a.strides()[1]);
  if (!av.ok) {
    a = a_in.contiguous();
    av = blas_view(m, kdim, a.strides()[0], a.strides()[1]);
  }
  BlasView bv = blas_view(kdim, n, b.strides()[0], b.strides()[1]);
  if (!bv.ok) {
    b = b_in.contiguous();
    bv = blas_view(kdim, n, b.strides()[0], b.strides()[1]);
  }
  // out^T (n x m, column-major, ld n) = b^T (n x k) * a^T (k x m).
  cublasHandle_t handle = cuda::cublas(out.device());
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(kdim);
  if (out.dtype() == DType::kFloat32) {
    const float one = 1.0f, zero = 0.0f;
    STRAND_CUBLAS_CHECK(cublasSgemm(handle, bv.op, av.op, in, im, ik, &one, b.data<float>(),
                                    static_cast<int>(bv.ld), a.data<float>(),
                                    static_cast<int>(av.ld), &zero, out.data<float>(), in));
  } else if (out.dtype() == DType::kFloat64) {
    const double one = 1.0, zero = 0.0;
    STRAND_CUBLAS_CHECK(cublasDgemm(handle, bv.op, av.op, in, im, ik, &one, b.data<double>(),
                                    static_cast<int>(bv.ld), a.data<double>(),
                                    static_cast<int>(av.ld), &zero, out.data<double>(), in));
  } else {
    cuda::throw_dtype_error("matmul", static_cast<int>(out.dtype()));
  }
}

}  // namespace

STRAND_REGISTER_KERNELS(matmul_cuda) {
  OpKernels<MatmulOp>::register_kernel(DeviceType::kCUDA, matmul_cuda);
}
#endif  // STRAND_WITH_CUDA

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
