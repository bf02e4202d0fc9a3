// 1-D pooling CPU kernels.
#include "kernels/cpu/pool1d.h"

#include <algorithm>

#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {

template <typename T>
void max_pool1d_forward(const Pool1DGeometry& g, const T* x, T* out, int64_t* argmax) {
#pragma omp parallel for schedule(static) if (g.rows * g.length >= kParallelGrain)
  for (int64_t r = 0; r < g.rows; ++r) {
    const T* row = x + r * g.length;
    for (int64_t t = 0; t < g.out_length; ++t) {
      int64_t best = g.window_start(t);
      // The first maximum; a NaN wins (and stays), as in PyTorch.
      for (int64_t p = best + 1; p < g.window_end(t) && row[best] == row[best]; ++p) {
        if (row[p] > row[best] || row[p] != row[p]) best = p;
      }
      out[r * g.out_length + t] = row[best];
      argmax[r * g.out_length + t] = best;
    }
  }
}

template <typename T>
void max_pool1d_backward(const Pool1DGeometry& g, const T* grad_out, const int64_t* argmax,
                         T* grad_x) {
#pragma omp parallel for schedule(static) if (g.rows * g.length >= kParallelGrain)
  for (int64_t r = 0; r < g.rows; ++r) {
    T* row = grad_x + r * g.length;
    std::fill(row, row + g.length, T(0));
    for (int64_t t = 0; t < g.out_length; ++t) {
      row[argmax[r * g.out_length + t]] += grad_out[r * g.out_length + t];
    }
  }
}

template <typename T>
void avg_pool1d_forward(const Pool1DGeometry& g, const T* x, T* out) {
#pragma omp parallel for schedule(static) if (g.rows * g.length >= kParallelGrain)
  for (int64_t r = 0; r < g.rows; ++r) {
    const T* row = x + r * g.length;
    for (int64_t t = 0; t < g.out_length; ++t) {
      T total = T(0);
      for (int64_t p = g.window_start(t); p < g.window_end(t); ++p) total += row[p];
      out[r * g.out_length + t] = total / static_cast<T>(g.window_end(t) - g.window_start(t));
    }
  }
}

template <typename T>
void avg_pool1d_backward(const Pool1DGeometry& g, const T* grad_out, T* grad_x) {
#pragma omp parallel for schedule(static) if (g.rows * g.length >= kParallelGrain)
  for (int64_t r = 0; r < g.rows; ++r) {
    T* row = grad_x + r * g.length;
    std::fill(row, row + g.length, T(0));
    for (int64_t t = 0; t < g.out_length; ++t) {
      const T share =
          grad_out[r * g.out_length + t] / static_cast<T>(g.window_end(t) - g.window_start(t));
      for (int64_t p = g.window_start(t); p < g.window_end(t); ++p) row[p] += share;
    }
  }
}

#define STRAND_INSTANTIATE_POOL1D(T)                                                         \
  template void max_pool1d_forward<T>(const Pool1DGeometry&, const T*, T*, int64_t*);        \
  template void max_pool1d_backward<T>(const Pool1DGeometry&, const T*, const int64_t*, T*); \
  template void avg_pool1d_forward<T>(const Pool1DGeometry&, const T*, T*);                  \
  template void avg_pool1d_backward<T>(const Pool1DGeometry&, const T*, T*);
STRAND_INSTANTIATE_POOL1D(float)
STRAND_INSTANTIATE_POOL1D(double)
#undef STRAND_INSTANTIATE_POOL1D

}  // namespace strand::kernels::cpu
