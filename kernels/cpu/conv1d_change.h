// A stride-1 Conv1D of a change over a window of columns, for the windowed forward passes of
// explanations (alternates/windowed_changes.h): out[o, j] = sum_k sum_c W[o, c, k] * d[c, j - s_k],
// where d is zero outside its W_in columns and s_k = shift0 - k * dilation places tap k's input
// columns among the output's. No bias (the change of a convolution has none). Optionally the
// ReLU that follows the convolution is applied to the change in the same pass:
// out = max(r + out, 0) - max(r, 0), with r the reference's pre-activation at the output columns.
//
// Why a kernel of its own: a residual block's window is a (64, W) change times 64 x 64 taps. Run
// as one library GEMM per tap, each call packs both operands, the middle tap writes the output
// and the others read it back and add (after a pass that zeroes the columns no tap reaches), and
// the ReLU is a further pass over the window. Here a block of output rows and columns stays in
// registers over every tap and channel, reading the change where it lies (a masked load where a
// tap's columns leave it), and is written once, with the ReLU applied.
//
// A residual block's Add of the convolution's input may be applied too, so that
// x + ReLU(conv(x)) costs one pass. Shapes: d (C, W_in), out (O, W_out), contiguous rows.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/float_vectors.h"

namespace strand::kernels::cpu {

/// The taps of a Conv1D weight (O, C, K) laid out for conv1d_change: blocks of
/// kChangeConvRows output channels, each (K, C, kChangeConvRows), the last block zero-padded.
struct ChangeConvTaps {
  std::vector<float> packed;
  /// The same weights as (K, C, padded_out), output channels innermost and zero-padded to a
  /// multiple of 64: the few columns at a tap's ends multiply all output channels at once.
  std::vector<float> by_column;
  int64_t out_channels = 0, in_channels = 0, taps = 0, padded_out = 0;
};

/// Output channels per register block: 8 rows of 3 vectors with AVX-512's 32 registers, 4 with
/// AVX2's 16 (12 accumulators, 3 columns of the change, 1 weight).
#if defined(__AVX512F__)
inline constexpr int64_t kChangeConvRows = 8;
#else
inline constexpr int64_t kChangeConvRows = 4;
#endif

/// Whether conv1d_change keeps its blocks in registers (AVX-512, or AVX2 with FMA); the portable
/// loops are for correctness only, and callers without it do better with one library GEMM per
/// tap.
inline constexpr bool kChangeConvInRegisters = float_vectors::kAvailable;

/// Packs a contiguous float weight (O, C, K).
ChangeConvTaps pack_change_conv_taps(const float* weight, int64_t out_channels, int64_t in_channels,
                                     int64_t taps);

/// The input and output windows of one conv1d_change.
struct ChangeConvWindow {
  int64_t dilation = 1;
  const float* d = nullptr;  // (C, w_in)
  int64_t w_in = 0;
  int64_t shift0 = 0;    // tap k reads input column j - (shift0 - k * dilation) for output j
  float* out = nullptr;  // (O, w_out)
  int64_t w_out = 0;
};

/// What is applied to the convolution before it is written.
struct ChangeConvEpilogue {
  /// The ReLU that follows: out = max(r + out, 0) - max(r, 0), r[o * reference_stride + j] the
  /// reference's pre-activation at output column j. Null: none.
  const float* relu_reference = nullptr;
  int64_t reference_stride = 0;
  /// Then a residual add of the convolution's own input: out[o, j] += d[o, j - input_shift]
  /// where that column lies in d (O == C).
  bool add_input = false;
  int64_t input_shift = 0;
};

/// window.out = the convolution described above, with `epilogue`, overwritten.
void conv1d_change(const ChangeConvTaps& taps, const ChangeConvWindow& window,
                   const ChangeConvEpilogue& epilogue);

}  // namespace strand::kernels::cpu
