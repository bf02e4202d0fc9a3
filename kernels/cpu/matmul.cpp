// Matrix multiply CPU kernels.
#include "kernels/cpu/matmul.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {

template <typename T>
void matmul_reference(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col,
                      const T* b, int64_t b_row, int64_t b_col, T* out) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T total = T(0);
      for (int64_t p = 0; p < k; ++p) total += a[i * a_row + p * a_col] * b[p * b_row + j * b_col];
      out[i * n + j] = total;
    }
  }
}

template <typename T>
void matmul_fast(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col,
                 const T* b, int64_t b_row, int64_t b_col, T* out) {
  // Tiny products (a Dense layer's 128x16 @ 16x1) cost more to pack than to compute.
  constexpr int64_t kSmallProduct = 16384;
  if (m * n * k <= kSmallProduct) {
    matmul_reference(m, n, k, a, a_row, a_col, b, b_row, b_col, out);
    return;
  }
  // Row-major b makes the inner loop a contiguous axpy; pack it only when it is not.
  std::vector<T> b_packed;
  const T* b_rows = b;
  if (!(b_col == 1 && b_row == n)) {
    b_packed.resize(static_cast<size_t>(k * n));
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < n; ++j) b_packed[p * n + j] = b[p * b_row + j * b_col];
    }
    b_rows = b_packed.data();
  }
  constexpr int64_t kBlockK = 256;  // keeps a block of b rows in L2 while rows of out reuse it
#pragma omp parallel for schedule(static) if (m * n * k >= kParallelGrain && m > 1)
  for (int64_t i = 0; i < m; ++i) {
    T* out_row = out + i * n;
    std::fill(out_row, out_row + n, T(0));
    for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
      const int64_t p1 = std::min(k, p0 + kBlockK);
      for (int64_t p = p0; p < p1; ++p) {
        const T scale = a[i * a_row + p * a_col];
        const T* b_row_p = b_rows + p * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) out_row[j] += scale * b_row_p[j];
      }
    }
  }
}

#define STRAND_INSTANTIATE_MATMUL(T)                                                            \
  template void matmul_reference<T>(int64_t, int64_t, int64_t, const T*, int64_t, int64_t,      \
                                    const T*, int64_t, int64_t, T*);                            \
  template void matmul_fast<T>(int64_t, int64_t, int64_t, const T*, int64_t, int64_t, const T*, \
                               int64_t, int64_t, T*);
STRAND_INSTANTIATE_MATMUL(float)
STRAND_INSTANTIATE_MATMUL(double)
#undef STRAND_INSTANTIATE_MATMUL

}  // namespace strand::kernels::cpu
