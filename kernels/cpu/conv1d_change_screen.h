// A screen of the units whose ReLU a change may switch, for explanations' readouts of a
// residual block (explain/relu_readout.h): the change's convolution estimated in bfloat16 (twice
// the multiply-adds an instruction of conv1d_change, kernels/cpu/conv1d_change.h) with a bound
// of the estimate's error, so that only the units the bound cannot decide need their exact
// change. Same windows and register blocks as conv1d_change.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/conv1d_change.h"

namespace strand::kernels::cpu {

/// Whether screen_relu_crossings runs here (AVX-512 BF16); callers without it convolve exactly.
#if defined(__AVX512F__) && defined(__AVX512BF16__)
inline constexpr bool kChangeScreenAvailable = true;
#else
inline constexpr bool kChangeScreenAvailable = false;
#endif

/// The most taps screen_relu_crossings takes.
inline constexpr int64_t kMaxChangeScreenTaps = 8;

/// The taps of a Conv1D weight (O, C, K) for screen_relu_crossings: pairs of input channels as
/// bfloat16 in one 32-bit word, in blocks of kChangeConvRows output channels, each (K, ceil(C /
/// 2), kChangeConvRows) words; and per tap the bound of the estimate's error per unit of an
/// input column's L1 norm (0.008 max |W[o, c, k]| over o and c).
struct ChangeScreenTaps {
  std::vector<uint32_t> packed;
  std::vector<float> largest_error_per_norm;  // (K)
  int64_t out_channels = 0, in_channels = 0, taps = 0;
};

/// Packs a contiguous float weight (O, C, K).
ChangeScreenTaps pack_change_screen_taps(const float* weight, int64_t out_channels,
                                         int64_t in_channels, int64_t taps);

/// A change's input columns as screen_relu_crossings reads them.
struct ChangeScreenWindow {
  int64_t dilation = 1;
  const uint32_t* pairs = nullptr;  // (ceil(C / 2), w_in): channels 2p, 2p + 1 as bfloat16
  const float* norms = nullptr;     // (w_in): sum over channels of |d| per input column
  int64_t w_in = 0;
  int64_t shift0 = 0;  // tap k reads input column j - (shift0 - k * dilation) for output j
  const float* reference = nullptr;  // the ReLU's input, r[o * reference_stride + j]
  int64_t reference_stride = 0;
  int64_t w_out = 0;
};

/// d (C, w_in) as ChangeScreenWindow::pairs (rounded to nearest even) and norms.
void pack_change_screen_input(const float* d, int64_t channels, int64_t w_in, uint32_t* pairs,
                              float* norms);

/// The units (o, j) of the convolution of the change, over output columns [0, w_out), whose
/// ReLU the change may switch: an estimate of the change's convolution in bfloat16 (twice the
/// multiply-adds an instruction of conv1d_change) and a bound of its error decide the rest,
/// which keep their side of zero: (r > 0) == (r + conv(d) > 0). Appends o * w_out + j for each
/// undecided unit to `undecided`.
void screen_relu_crossings(const ChangeScreenTaps& taps, const ChangeScreenWindow& window,
                           std::vector<int32_t>& undecided);

}  // namespace strand::kernels::cpu
