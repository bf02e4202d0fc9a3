// General matrix multiply: oneDNN's sgemm for large float32 products, matmul_fast otherwise.
#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <exception>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "kernels/cpu/isa.h"
#include "kernels/cpu/matmul.h"

#ifdef STRAND_WITH_ONEDNN
#include <dnnl.h>
#include <omp.h>
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

// oneDNN's sgemm shares a product among the threads it finds, and on some ISAs (AVX2) it splits
// the k reduction among them too, so C's bits would depend on the thread count. strand calls it
// on one thread only (oneDNN reads the calling thread's OpenMP thread count) and shares the
// work itself, in tiles that depend on the product's shape alone (gemm_tiles).
class OneThreadForOneDnn {
 public:
  OneThreadForOneDnn() : previous_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneThreadForOneDnn() { omp_set_num_threads(previous_); }
  OneThreadForOneDnn(const OneThreadForOneDnn&) = delete;
  OneThreadForOneDnn& operator=(const OneThreadForOneDnn&) = delete;

 private:
  int previous_;
};

// A product of at least this many multiply-adds is split into tiles for the threads.
constexpr int64_t kTiledGemmMinMultiplyAdds = int64_t{1} << 21;
// The most tiles, and the fewest rows or columns in one (a multiple of every vector width).
constexpr int64_t kMaxGemmTiles = 24;
constexpr int64_t kMinGemmTileSide = 64;

// How a product is split: `count` tiles of `side` rows (by_rows) or columns of C, the last one
// shorter. A function of the shape only, so that every thread count gives the same tiles.
struct GemmTiles {
  bool by_rows = true;
  int64_t count = 1;
  int64_t side = 0;
};
GemmTiles gemm_tiles(int64_t m, int64_t n, int64_t k) {
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  if (m * n * k < kTiledGemmMinMultiplyAdds || extent < 2 * kMinGemmTileSide) {
    return {by_rows, 1, extent};
  }
  const int64_t wanted = std::min(kMaxGemmTiles, extent / kMinGemmTileSide);
  // Sides rounded up to a multiple of 16 (a zmm of floats), then as few tiles as that needs.
  const int64_t side = ((extent + wanted - 1) / wanted + 15) / 16 * 16;
  return {by_rows, (extent + side - 1) / side, side};
}

// C = beta * C + A @ B on oneDNN, one sequential call per tile, tiles shared among the threads.
// A tile of rows starts a_row further down A, a tile of columns b_col further along B.
void onednn_sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row,
                  const BlasOperand& av, const float* b, int64_t b_col, const BlasOperand& bv,
                  float beta, float* c, int64_t ldc) {
  const GemmTiles tiles = gemm_tiles(m, n, k);
  const auto run_tile = [&](int64_t tile) {
    const int64_t first = tile * tiles.side;
    const int64_t count = std::min(tiles.side, (tiles.by_rows ? m : n) - first);
    const float* a_tile = tiles.by_rows ? a + first * a_row : a;
    const float* b_tile = tiles.by_rows ? b : b + first * b_col;
    float* c_tile = tiles.by_rows ? c + first * ldc : c + first;
    const int64_t rows = tiles.by_rows ? count : m;
    const int64_t cols = tiles.by_rows ? n : count;
    const OneThreadForOneDnn one_thread;
    const dnnl_status_t status =
        dnnl_sgemm(av.trans, bv.trans, rows, cols, k, 1.0f, a_tile, std::max<int64_t>(av.ld, 1),
                   b_tile, std::max<int64_t>(bv.ld, 1), beta, c_tile, ldc);
    STRAND_CHECK(status == dnnl_success, "gemm ({} x {} x {}): dnnl_sgemm failed with status {}",
                 rows, k, cols, static_cast<int>(status));
  };
  // Inside a parallel region (a thread's share of a batch, an explanation's unit of work) the
  // same tiles run in order on this thread.
  if (tiles.count == 1 || omp_in_parallel()) {
    for (int64_t tile = 0; tile < tiles.count; ++tile) run_tile(tile);
    return;
  }
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t tile = 0; tile < tiles.count; ++tile) {
    try {
      run_tile(tile);
    } catch (...) {
#pragma omp critical(strand_gemm_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
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
