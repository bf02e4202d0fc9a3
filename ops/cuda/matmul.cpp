// Matrix multiply: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rules are in ops/matmul.cpp. float32 runs in
// exact FP32, TF32 or bfloat16 (cublasGemmEx on bfloat16 copies) per tensor/precision.h.
#include "ops/matmul.h"

#include <algorithm>
#include <climits>

#include "kernels/cuda/check.h"
#include "tensor/cuda/adapter_util.h"
#include "tensor/cuda/bfloat16_staging.h"
#include "tensor/precision.h"

namespace strand {

// ---- CUDA adapter: Tensors to cuBLAS ---------------------------------------------------------
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

// The elements a (rows x cols) operand seen through `view` spans from its first: the last
// row (op N) or column (op T) starts (outer - 1) * ld in.
int64_t span(int64_t rows, int64_t cols, const BlasView& view) {
  const bool by_rows = view.op == CUBLAS_OP_N;
  const int64_t outer = by_rows ? rows : cols, inner = by_rows ? cols : rows;
  return (outer - 1) * view.ld + inner;
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
  if (out.dtype() == DType::kFloat32 && float32_precision() == Float32Precision::kBf16) {
    // bfloat16 copies of the operands as they are laid out (same op and ld), float32 sums and
    // output on tensor cores: autocast's matmul, but with the float32 result kept.
    const Tensor a16 = cuda::bfloat16_copy(a.data<float>(), span(m, kdim, av), out.device());
    const Tensor b16 = cuda::bfloat16_copy(b.data<float>(), span(kdim, n, bv), out.device());
    const float one = 1.0f, zero = 0.0f;
    STRAND_CUBLAS_CHECK(cublasGemmEx(handle, bv.op, av.op, in, im, ik, &one, b16.raw_data(),
                                     CUDA_R_16BF, static_cast<int>(bv.ld), a16.raw_data(),
                                     CUDA_R_16BF, static_cast<int>(av.ld), &zero, out.raw_data(),
                                     CUDA_R_32F, in, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  } else if (out.dtype() == DType::kFloat32) {
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

}  // namespace strand
