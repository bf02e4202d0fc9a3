// General matrix multiply: oneDNN's sgemm for large float32 products, matmul_fast otherwise.
#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "kernels/cpu/matmul.h"

#ifdef STRAND_WITH_ONEDNN
#include <dnnl.h>
#endif

namespace strand::kernels::cpu {
namespace {

// C = beta * C + A @ B on strand's own loop: the product into a scratch row-major buffer, then
// combined with C.
template <typename T>
void own_gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col, const T* b,
              int64_t b_row, int64_t b_col, T beta, T* c, int64_t ldc) {
  if (beta == T(0) && ldc == n) {
    matmul_fast<T>(m, n, k, a, a_row, a_col, b, b_row, b_col, c);
    return;
  }
  thread_local std::vector<T> product;
  product.resize(static_cast<size_t>(m * n));
  matmul_fast<T>(m, n, k, a, a_row, a_col, b, b_row, b_col, product.data());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T& out = c[i * ldc + j];
      out = (beta == T(0) ? T(0) : beta * out) + product[static_cast<size_t>(i * n + j)];
    }
  }
}

#ifdef STRAND_WITH_ONEDNN
// An operand as BLAS sees it, row-major: 'N' with leading dimension = row stride when its rows
// are contiguous, 'T' with leading dimension = column stride when its columns are.
struct BlasOperand {
  bool ok = false;
  char trans = 'N';
  int64_t ld = 0;
};
BlasOperand blas_operand(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  if ((col_stride == 1 || cols == 1) && row_stride >= cols) return {true, 'N', row_stride};
  if ((row_stride == 1 || rows == 1) && col_stride >= rows) return {true, 'T', col_stride};
  return {};
}
#endif

}  // namespace

template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col, const T* b,
          int64_t b_row, int64_t b_col, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
#ifdef STRAND_WITH_ONEDNN
  if constexpr (std::is_same_v<T, float>) {
    const BlasOperand av = blas_operand(m, k, a_row, a_col);
    const BlasOperand bv = blas_operand(k, n, b_row, b_col);
    if (av.ok && bv.ok && k > 0 && m * n * k >= kLibraryGemmMinMultiplyAdds) {
      const dnnl_status_t status =
          dnnl_sgemm(av.trans, bv.trans, m, n, k, 1.0f, a, std::max<int64_t>(av.ld, 1), b,
                     std::max<int64_t>(bv.ld, 1), beta, c, ldc);
      STRAND_CHECK(status == dnnl_success, "gemm ({} x {} x {}): dnnl_sgemm failed with status {}",
                   m, k, n, static_cast<int>(status));
      return;
    }
  }
#endif
  own_gemm<T>(m, n, k, a, a_row, a_col, b, b_row, b_col, beta, c, ldc);
}

const char* gemm_library() {
#ifdef STRAND_WITH_ONEDNN
  return "onednn";
#else
  return "strand";
#endif
}

template void gemm<float>(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, const float*,
                          int64_t, int64_t, float, float*, int64_t);
template void gemm<double>(int64_t, int64_t, int64_t, const double*, int64_t, int64_t,
                           const double*, int64_t, int64_t, double, double*, int64_t);

}  // namespace strand::kernels::cpu
