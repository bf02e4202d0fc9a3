// Reduction CPU kernels.
#include "kernels/cpu/reduction.h"

#include <cmath>

#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {

template <typename T>
void sum_reduce(int outer_rank, const int64_t* outer_shape, const int64_t* outer_strides,
                int inner_rank, const int64_t* inner_shape, const int64_t* inner_strides,
                const T* x, T* out) {
  int64_t outer_count = 1;
  for (int d = 0; d < outer_rank; ++d) outer_count *= outer_shape[d];
  int64_t inner_count = 1;
  for (int d = 0; d < inner_rank; ++d) inner_count *= inner_shape[d];
#pragma omp parallel for schedule(static) if (outer_count * inner_count >= kParallelGrain && \
                                              outer_count > 1)
  for (int64_t o = 0; o < outer_count; ++o) {
    int64_t base = 0;
    int64_t rest = o;
    for (int d = outer_rank - 1; d >= 0; --d) {
      base += (rest % outer_shape[d]) * outer_strides[d];
      rest /= outer_shape[d];
    }
    // The inner space is walked row by row, sequentially: the outer loop is the parallel one.
    double total = 0.0;
    const int64_t count = inner_rank == 0 ? 1 : inner_shape[inner_rank - 1];
    const int64_t step = inner_rank == 0 ? 0 : inner_strides[inner_rank - 1];
    const int64_t rows = count == 0 ? 0 : inner_count / count;
    for (int64_t r = 0; r < rows; ++r) {
      int64_t offset = base;
      int64_t rest_inner = r;
      for (int d = inner_rank - 2; d >= 0; --d) {
        offset += (rest_inner % inner_shape[d]) * inner_strides[d];
        rest_inner /= inner_shape[d];
      }
      const T* row = x + offset;
      // Contiguous rows in vector lanes (double accumulators: a sum of floats of one magnitude
      // is exact in double, so the lane order does not change it).
      double row_total = 0.0;
      if (step == 1) {
#pragma omp simd reduction(+ : row_total)
        for (int64_t i = 0; i < count; ++i) row_total += static_cast<double>(row[i]);
      } else {
        for (int64_t i = 0; i < count; ++i) row_total += static_cast<double>(row[i * step]);
      }
      total += row_total;
    }
    out[o] = static_cast<T>(total);
  }
}

template <typename T>
void max_reduce(int64_t outer_count, const int64_t* outer_offsets, int64_t count, int64_t stride,
                const T* x, T* values, int64_t* indices) {
#pragma omp parallel for schedule(static) if (outer_count * count >= kParallelGrain)
  for (int64_t o = 0; o < outer_count; ++o) {
    const T* row = x + outer_offsets[o];
    T best = row[0];
    int64_t best_index = 0;
    for (int64_t i = 1; i < count && !std::isnan(best); ++i) {
      const T value = row[i * stride];
      if (value > best || std::isnan(value)) {
        best = value;
        best_index = i;
      }
    }
    values[o] = best;
    indices[o] = best_index;
  }
}

template void sum_reduce<float>(int, const int64_t*, const int64_t*, int, const int64_t*,
                                const int64_t*, const float*, float*);
template void sum_reduce<double>(int, const int64_t*, const int64_t*, int, const int64_t*,
                                 const int64_t*, const double*, double*);
template void max_reduce<float>(int64_t, const int64_t*, int64_t, int64_t, const float*, float*,
                                int64_t*);
template void max_reduce<double>(int64_t, const int64_t*, int64_t, int64_t, const double*, double*,
                                 int64_t*);

}  // namespace strand::kernels::cpu
