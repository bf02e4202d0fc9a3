// Direct (no im2col) Conv1D for layers with few output channels, one sample at a time: the
// kernels/cpu/conv1d.cpp passes call these where conv1d_direct_applies(). With O <= 4, im2col +
// GEMM is a product of M = O rows against a column matrix C * K times the input's size (a
// BPNet-style profile head, 64 -> 2 channels over 75 taps, builds 40 MB of columns per sample
// to do 2 multiply-adds per column entry); the direct loops keep a block of output positions
// for every output channel in registers and stream the input rows, which stay in cache. With
// AVX-512, float and dilation 1 (a profile head), consecutive taps are lane shifts of the same
// two loaded vectors (valignd), not a load each across a cache line: 1.5-2x the portable loops.
// Shapes as in kernels/cpu/conv1d.h, one sample: x_b (C, L), out_b / grad_out_b (O, L_out),
// w (O, C, K). Stride 1, any dilation and padding.
#pragma once

#include <cstdint>

#include "kernels/conv1d_geometry.h"

namespace strand::kernels::cpu {

/// Output channels up to which the direct loops beat im2col + GEMM (bench/kernel_efficiency).
inline constexpr int64_t kDirectMaxOutChannels = 4;

/// Whether the direct kernels handle g: stride 1 and at most kDirectMaxOutChannels outputs.
inline bool conv1d_direct_applies(const Conv1DGeometry& g) {
  return g.stride == 1 && g.out_channels <= kDirectMaxOutChannels;
}

/// out_b = conv(x_b) + bias (bias may be null), then max(., 0) when relu.
template <typename T>
void conv1d_direct_forward_sample(const Conv1DGeometry& g, const T* x_b, const T* w, const T* bias,
                                  bool relu, T* out_b);
/// grad_x_b (C, L), overwritten, from grad_out_b.
template <typename T>
void conv1d_direct_backward_input_sample(const Conv1DGeometry& g, const T* grad_out_b, const T* w,
                                         T* grad_x_b);
/// grad_w (O, C, K) += this sample's weight gradient.
template <typename T>
void conv1d_direct_backward_weight_sample(const Conv1DGeometry& g, const T* grad_out_b,
                                          const T* x_b, T* grad_w);

}  // namespace strand::kernels::cpu
