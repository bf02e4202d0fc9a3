// Matrix multiply CPU kernels: a readable oracle and a fast blocked, OpenMP version.
#pragma once

#include <cstdint>

namespace strand::kernels::cpu {

/// out (M, N) = a (M, K) @ b (K, N). a is addressed a[i * a_row + k * a_col], b likewise, so
/// transposed views need no copy; out is contiguous.
template <typename T>
void matmul_reference(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col,
                      const T* b, int64_t b_row, int64_t b_col, T* out);

/// Same contract; packs a and b to row-major and runs an i-k-j loop whose inner j loop
/// vectorises, rows split across threads.
template <typename T>
void matmul_fast(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col,
                 const T* b, int64_t b_row, int64_t b_col, T* out);

}  // namespace strand::kernels::cpu
