// for_each_row: the loop every strided CPU kernel is built on. It walks an N-d index space
// in row-major order, one innermost row at a time, handing each operand's element offset
// for the row start and its innermost stride. Rows run in parallel (OpenMP) when there is
// enough work. Raw pointers and int64 extents only: kernels/ knows no Tensor type.
#pragma once

#include <omp.h>

#include <array>
#include <cstdint>

namespace strand::kernels::cpu {

/// Elements below which a loop stays on one thread (thread start-up costs more).
inline constexpr int64_t kParallelGrain = 32768;

/// `shape`: (rank) extents; `strides[i]`: (rank) strides of operand i, in elements.
/// Calls row(offsets, inner_strides, count) with offsets[i] the offset of the row's first
/// element in operand i.
template <size_t N, typename Row>
void for_each_row(int rank, const int64_t* shape, const std::array<const int64_t*, N>& strides,
                  Row&& row) {
  if (rank == 0) {
    std::array<int64_t, N> offsets{};
    std::array<int64_t, N> inner{};
    row(offsets, inner, int64_t{1});
    return;
  }
  const int64_t count = shape[rank - 1];
  std::array<int64_t, N> inner;
  for (size_t i = 0; i < N; ++i) inner[i] = strides[i][rank - 1];
  int64_t rows = 1;
  for (int d = 0; d < rank - 1; ++d) rows *= shape[d];
  if (rows == 0 || count == 0) return;
#pragma omp parallel for schedule(static) if (rows * count >= kParallelGrain && rows > 1)
  for (int64_t r = 0; r < rows; ++r) {
    std::array<int64_t, N> offsets{};
    int64_t rest = r;
    for (int d = rank - 2; d >= 0; --d) {
      const int64_t index = rest % shape[d];
      rest /= shape[d];
      for (size_t i = 0; i < N; ++i) offsets[i] += index * strides[i][d];
    }
    row(offsets, inner, count);
  }
}

}  // namespace strand::kernels::cpu
