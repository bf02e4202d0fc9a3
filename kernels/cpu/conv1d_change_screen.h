// A screen of the units whose ReLU a change may switch, for explanations' readouts of a
// residual block (alternates/relu_readout.h): the change's convolution estimated with twice the
// multiply-adds an instruction of conv1d_change (kernels/cpu/conv1d_change.h), with a bound of
// the estimate's error, so that only the units the bound cannot decide need their exact change.
// Same windows and column blocks as conv1d_change.
//
// Two estimates, one per instruction set: AVX-512 BF16 rounds weights and change to bfloat16
// (vdpbf16ps, 32 multiply-adds an instruction); AVX2 has no such instruction and rounds both to
// 16-bit integers on one scale each (vpmaddwd + vpaddd into 32-bit sums: 16 multiply-adds an
// instruction against an 8-lane FMA's 8, measured at twice the FMA's rate on AMD EPYC). The
// integers' scales keep every sum below 2^31, so the integer part is exact and the bound covers
// the rounding of the operands and of the final conversion to float.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/conv1d_change.h"

namespace strand::kernels::cpu {

/// Whether screen_relu_crossings runs here (AVX-512 BF16, or AVX2 with FMA in a build without
/// AVX-512); callers without it convolve exactly. kChangeScreenInIntegers: the estimate is the
/// AVX2 one, in 16-bit integers. kChangeScreenRows: output channels per register block (AVX2:
/// 3 rows of 3 vectors, 9 accumulators of its 16 registers).
#if defined(__AVX512F__) && defined(__AVX512BF16__)
inline constexpr bool kChangeScreenAvailable = true;
inline constexpr bool kChangeScreenInIntegers = false;
inline constexpr int64_t kChangeScreenRows = kChangeConvRows;
#elif !defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
inline constexpr bool kChangeScreenAvailable = true;
inline constexpr bool kChangeScreenInIntegers = true;
inline constexpr int64_t kChangeScreenRows = 3;
#else
inline constexpr bool kChangeScreenAvailable = false;
inline constexpr bool kChangeScreenInIntegers = false;
inline constexpr int64_t kChangeScreenRows = kChangeConvRows;
#endif

/// The most taps screen_relu_crossings takes.
inline constexpr int64_t kMaxChangeScreenTaps = 8;

/// The taps of a Conv1D weight (O, C, K) for screen_relu_crossings: pairs of input channels as
/// bfloat16 (or 16-bit integers, weight_step each) in one 32-bit word, in blocks of
/// kChangeScreenRows output channels, each (K, ceil(C / 2), kChangeScreenRows) words; per tap
/// the bound of the estimate's error per unit of an input column's L1 norm (bfloat16: 0.008 max
/// |W[o, c, k]| over o and c); and (integers) the bound's part per unit of the input's step.
struct ChangeScreenTaps {
  std::vector<uint32_t> packed;
  std::vector<float> largest_error_per_norm;  // (K)
  float weight_step = 1.0F;                   // integers: the weight one integer stands for
  float error_per_input_step = 0.0F;          // integers: the bound's part per input step
  int32_t largest_input = 0;                  // integers: the largest |integer| of an input
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
  float input_step = 1.0F;          // integers: what one unit of `pairs` stands for
  int64_t w_in = 0;
  int64_t shift0 = 0;  // tap k reads input column j - (shift0 - k * dilation) for output j
  const float* reference = nullptr;  // the ReLU's input, r[o * reference_stride + j]
  int64_t reference_stride = 0;
  int64_t w_out = 0;
};

/// d (C, w_in), C = taps.in_channels, as ChangeScreenWindow::pairs (rounded to nearest even)
/// and norms; returns ChangeScreenWindow::input_step (1 for bfloat16; with integers the largest
/// |d| over taps.largest_input, and NaN where d is not finite or too small to scale: the screen
/// then leaves every unit undecided).
float pack_change_screen_input(const ChangeScreenTaps& taps, const float* d, int64_t w_in,
                               uint32_t* pairs, float* norms);

/// The units (o, j) of the convolution of the change, over output columns [0, w_out), whose
/// ReLU the change may switch: an estimate of the change's convolution (twice the multiply-adds
/// an instruction of conv1d_change) and a bound of its error decide the rest,
/// which keep their side of zero: (r > 0) == (r + conv(d) > 0). Appends o * w_out + j for each
/// undecided unit to `undecided`.
void screen_relu_crossings(const ChangeScreenTaps& taps, const ChangeScreenWindow& window,
                           std::vector<int32_t>& undecided);

}  // namespace strand::kernels::cpu
