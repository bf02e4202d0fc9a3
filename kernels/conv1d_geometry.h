// Conv1DGeometry: the sizes every Conv1D kernel needs, as plain integers (kernels/ knows no
// Tensor). Input position of output t and tap k: t * stride + k * dilation - pad_left;
// positions outside [0, length) read as zero (or as N for base codes).
#pragma once

#include <cstdint>

namespace strand::kernels {

struct Conv1DGeometry {
  int64_t batch = 0;         // B
  int64_t in_channels = 0;   // C (4 for one-hot DNA)
  int64_t length = 0;        // L
  int64_t out_channels = 0;  // O
  int64_t kernel_size = 0;   // K
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_left = 0;
  int64_t out_length = 0;  // L_out

  int64_t input_position(int64_t t, int64_t k) const {
    return t * stride + k * dilation - pad_left;
  }
};

/// DNA base codes: 0..3 = A, C, G, T; kBaseN (and anything larger) is N, an all-zero one-hot.
inline constexpr uint8_t kBaseN = 4;

}  // namespace strand::kernels
