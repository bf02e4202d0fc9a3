// General matrix multiply: oneDNN's sgemm for large float32 products, matmul_fast otherwise.
#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "kernels/cpu/gemm_tiles.h"
#include "kernels/cpu/isa.h"
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

// C = beta * C + A @ B on oneDNN, one sequential call per tile, tiles shared among the threads
// (kernels/cpu/gemm_tiles.h). A tile of rows starts a_row further down A, a tile of columns b_col
// further along B.
void onednn_sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row,
                  const BlasOperand& av, const float* b, int64_t b_col, const BlasOperand& bv,
                  float beta, float* c, int64_t ldc) {
  for_each_gemm_tile(m, n, k, [&](const GemmTile& t) {
    const dnnl_status_t status = dnnl_sgemm(
        av.trans, bv.trans, t.rows, t.cols, k, 1.0f, a + t.row * a_row, std::max<int64_t>(av.ld, 1),
        b + t.col * b_col, std::max<int64_t>(bv.ld, 1), beta, c + t.row * ldc + t.col, ldc);
    STRAND_CHECK(status == dnnl_success, "gemm ({} x {} x {}): dnnl_sgemm failed with status {}",
                 t.rows, k, t.cols, static_cast<int>(status));
  });
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
      onednn_sgemm(m, n, k, a, a_row, av, b, b_col, bv, beta, c, ldc);
      return;
    }
  }
#endif
  own_gemm<T>(m, n, k, a, a_row, a_col, b, b_row, b_col, beta, c, ldc);
}

const char* gemm_isa() {
#ifdef STRAND_WITH_ONEDNN
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2";
    case dnnl_cpu_isa_avx512_core:
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "amx";
    default:
      return "other";
  }
#else
  return "none";
#endif
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
