// ReluReadout: how a linear readout of a residual block's column sums changes when the block's
// input changes over a window, without the block's whole convolution of the change.
//
// BPNet's and ChromBPNet's counts head reads the last residual block through linear steps only:
// y = Dense(mean over a crop of (x + relu(conv(x)))). An alternate (an ISM mutant) changes x by
// dx over a window; readout t then changes by
//   sum over channels o and crop columns j of V[t, o] (dx[o, j] + relu(a[o, j] + d[o, j]) -
//   relu(a[o, j])),
// with a the reference's pre-activation and d = conv(dx). Where a unit keeps its side of zero its
// ReLU term is m d (m = a > 0), and the sum of those terms over every unit is one fixed linear
// map of dx per reference sequence, F_t = conv^T(V_t * m). So
//   dy_t = F_t . dx + V_t . (crop sums of dx) + the corrections of the units that switch,
//   correction = relu(a + d) - relu(a) - m d.
// Which units may switch comes from kernels/cpu/conv1d_change_screen.h: d
// estimated in bfloat16 (AVX-512 BF16) or 16-bit integers (AVX2), twice the multiply-adds an
// instruction, with a bound of its error. On the trained BPNet preset the bfloat16 screen
// leaves 0.37% of the last block's units undecided (0.33% switch); each
// gets its exact d in float (three dots of the input channels). The result is the block's exact
// change summed in another order: equal to convolving it up to float rounding.
//
// Shapes: weight (O, C, K) with O == C (a residual block), stride 1; pre-activations (G, O,
// out_length); F (G, T, C, in_length); a change (M, C, W).
#pragma once

#include <cstdint>
#include <span>

#include "kernels/cpu/conv1d_change_screen.h"
#include "ops/conv1d.h"
#include "tensor/tensor.h"

namespace strand::alternates {

class ReluReadout {
 public:
  /// Whether this build can screen the units (kernels/cpu/conv1d_change_screen.h: AVX-512 BF16
  /// or AVX2); without it the block is convolved.
  static constexpr bool kAvailable = kernels::cpu::kChangeScreenAvailable;

  /// weight: the convolution's (O, C, K) float32, with `params`' padding and dilation, from
  /// in_length to out_length columns; readout: (T, O), readout t's weight on channel o's sum over
  /// the block's output columns [crop_lo, crop_hi).
  ReluReadout(const Tensor& weight, const Conv1DParams& params, int64_t in_length,
              int64_t out_length, const Tensor& readout, int64_t crop_lo, int64_t crop_hi);

  /// F for reference pre-activations `pre` (G, O, out_length): (G, T, C, in_length).
  Tensor functional(const Tensor& pre) const;

  /// out[m, t] += readout t's change for M alternates: alternate m changes the block's input of
  /// reference row slots[m] by change[m] (C, W) over columns [starts[m], starts[m] + W). `pre`
  /// and `functional` are the reference rows' (above). Single-threaded: callers run alternates in
  /// parallel units.
  void add_changes(const Tensor& pre, const Tensor& functional, std::span<const int64_t> slots,
                   const Tensor& change, std::span<const int64_t> starts, float* out) const;

  /// The bytes of F per reference row.
  int64_t bytes_per_row() const;

 private:
  struct Scratch;
  void add_change(const float* pre, const float* functional, const float* dx, int64_t width,
                  int64_t start, Scratch& scratch, float* y) const;

  kernels::cpu::ChangeScreenTaps screen_;
  Tensor taps_;     // (K, O, C): each tap's rows contiguous over the input channels
  Tensor readout_;  // (T, O)
  Conv1DParams params_;
  int64_t kernel_ = 0, in_length_ = 0, out_length_ = 0, crop_lo_ = 0, crop_hi_ = 0;
};

}  // namespace strand::alternates
