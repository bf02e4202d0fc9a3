// The pooling window rules, written once for the CPU loops (kernels/cpu/pooling.cpp: the oracles
// and the windows the vectorised kernels cut short) and the CUDA kernels
// (kernels/cuda/pooling.cu), so both backends pick the same argmax and divide by the same count.
#pragma once

#include <cstdint>

#include "core/host_device.h"
#include "kernels/pooling_geometry.h"

namespace strand::kernels {

/// The position in `row` of the first maximum of output t's window; a NaN wins (and stays), as
/// in PyTorch.
template <typename T>
STRAND_HOST_DEVICE inline int64_t window_argmax(const Pool1DGeometry& g, const T* row, int64_t t) {
  int64_t best = g.window_start(t);
  for (int64_t p = best + 1; p < g.window_end(t) && row[best] == row[best]; ++p) {
    if (row[p] > row[best] || row[p] != row[p]) best = p;
  }
  return best;
}

/// The mean of `row` over output t's window (a window cut short by the row's end divides by its
/// own size).
template <typename T>
STRAND_HOST_DEVICE inline T window_mean(const Pool1DGeometry& g, const T* row, int64_t t) {
  T total = T(0);
  for (int64_t p = g.window_start(t); p < g.window_end(t); ++p) total += row[p];
  return total / static_cast<T>(g.window_end(t) - g.window_start(t));
}

}  // namespace strand::kernels
