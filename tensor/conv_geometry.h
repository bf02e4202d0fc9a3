// Builds the kernels' Conv1DGeometry from tensor shapes: input (B, C, L) or codes (B, L)
// (C = 4), weight (O, C, K).
#pragma once

#include "kernels/cpu/conv1d_geometry.h"
#include "tensor/op_declarations.h"

namespace strand {

inline int64_t conv1d_out_length(int64_t length, int64_t kernel_size, const Conv1DParams& p) {
  const int64_t span = length + p.pad_left + p.pad_right - p.dilation * (kernel_size - 1) - 1;
  return span < 0 ? 0 : span / p.stride + 1;
}

inline kernels::Conv1DGeometry conv_geometry(const Shape& input, const Shape& weight,
                                             const Conv1DParams& p) {
  kernels::Conv1DGeometry g;
  g.batch = input[0];
  g.in_channels = input.size() == 2 ? 4 : input[1];
  g.length = input.back();
  g.out_channels = weight[0];
  g.kernel_size = weight[2];
  g.stride = p.stride;
  g.dilation = p.dilation;
  g.pad_left = p.pad_left;
  g.out_length = conv1d_out_length(g.length, g.kernel_size, p);
  return g;
}

}  // namespace strand
