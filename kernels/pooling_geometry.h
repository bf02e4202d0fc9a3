// Pool1DGeometry: the sizes every 1-D pooling kernel needs (CPU and CUDA), as plain integers.
// A pooled input is (rows, length) with rows = B * C; output t pools the window
// [t * stride, min(t * stride + kernel, length)) (no padding; with ceil_mode the last window
// may be cut short by the input's end).
#pragma once

#include <cstdint>

#include "core/host_device.h"

namespace strand::kernels {

struct Pool1DGeometry {
  int64_t rows = 0;        // B * C
  int64_t length = 0;      // L
  int64_t kernel = 1;      // K
  int64_t stride = 1;      // S
  int64_t out_length = 0;  // L_out

  STRAND_HOST_DEVICE int64_t window_start(int64_t t) const { return t * stride; }
  STRAND_HOST_DEVICE int64_t window_end(int64_t t) const {
    const int64_t end = t * stride + kernel;
    return end < length ? end : length;
  }
  /// The outputs whose windows contain input position p: [first, last] (empty when first >
  /// last).
  STRAND_HOST_DEVICE int64_t first_output_reading(int64_t p) const {
    return p < kernel ? 0 : (p - kernel) / stride + 1;
  }
  STRAND_HOST_DEVICE int64_t last_output_reading(int64_t p) const {
    const int64_t last = p / stride;
    return last < out_length - 1 ? last : out_length - 1;
  }
};

/// L_out for an input of `length`: floor((L - K) / S) + 1, or with ceil_mode the ceiling, less
/// one when that last window would start past the input (as PyTorch's MaxPool1d and
/// AvgPool1d). 0 when the input is shorter than the kernel.
inline int64_t pool1d_out_length(int64_t length, int64_t kernel, int64_t stride, bool ceil_mode) {
  if (length < kernel) return 0;
  const int64_t span = length - kernel;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= length) --out;
  return out;
}

}  // namespace strand::kernels
