// kernels/cpu/conv1d_change.h against a readable float64 oracle: windows that taps leave on
// either side, taps that miss the window, rows and columns that are not whole register blocks,
// and each epilogue (none, the ReLU, the ReLU and the residual input).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/conv1d_change.h"
#include "test_helpers.h"

namespace strand {
namespace {

namespace cpu = kernels::cpu;
using testing::random_values;

struct ChangeCase {
  int64_t out_channels, in_channels, taps, dilation, w_in, shift0, w_out;
};

// out[o, j] per the header, in float64.
std::vector<double> oracle(const ChangeCase& c, const std::vector<float>& weight,
                           const std::vector<float>& d, const std::vector<float>& reference,
                           bool relu, bool add_input, int64_t input_shift) {
  std::vector<double> out(static_cast<size_t>(c.out_channels * c.w_out), 0.0);
  for (int64_t o = 0; o < c.out_channels; ++o) {
    for (int64_t j = 0; j < c.w_out; ++j) {
      double sum = 0.0;
      for (int64_t k = 0; k < c.taps; ++k) {
        const int64_t i = j - (c.shift0 - k * c.dilation);
        if (i < 0 || i >= c.w_in) continue;
        for (int64_t ch = 0; ch < c.in_channels; ++ch) {
          sum += static_cast<double>(
                     weight[static_cast<size_t>((o * c.in_channels + ch) * c.taps + k)]) *
                 d[static_cast<size_t>(ch * c.w_in + i)];
        }
      }
      if (relu) {
        const double r = reference[static_cast<size_t>(o * c.w_out + j)];
        sum = std::max(r + sum, 0.0) - std::max(r, 0.0);
      }
      const int64_t i = j - input_shift;
      if (add_input && i >= 0 && i < c.w_in) sum += d[static_cast<size_t>(o * c.w_in + i)];
      out[static_cast<size_t>(o * c.w_out + j)] = sum;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("conv1d_change matches its float64 oracle for every window and epilogue") {
  const std::vector<ChangeCase> cases = {
      {64, 64, 3, 256, 529, 256, 1041},  // a BPNet block's whole window
      {64, 64, 3, 16, 49, 16, 81},       // a narrower block
      {64, 64, 3, 8, 33, 5, 40},         // clipped: taps leave the output on the right
      {64, 64, 3, 4, 25, -3, 30},        // clipped on the left: a tap reads before d
      {64, 64, 3, 64, 20, 300, 50},      // every tap misses: all zero before the epilogue
      {13, 13, 5, 1, 47, 2, 51},         // rows and columns that are not whole blocks
      {8, 40, 11, 1, 100, 10, 97},       // a long dilation-1 kernel, C != O
      {9, 9, 1, 1, 1, 0, 1},             // one column
      {17, 17, 2, 7, 60, 14, 97},        // an even kernel, odd dilation
      {5, 33, 3, 1, 7, 1, 9},            // every tap's columns inside one vector
      {6, 32, 3, 3, 9, 4, 23},           // taps ending 1 to 7 columns into a vector
      {64, 64, 3, 2, 17, 2, 21},         // a residual block's narrowest window (16m + 1)
  };
  for (const ChangeCase& c : cases) {
    CAPTURE(c.out_channels);
    CAPTURE(c.dilation);
    CAPTURE(c.w_in);
    CAPTURE(c.shift0);
    CAPTURE(c.w_out);
    const auto weight = random_values<float>(c.out_channels * c.in_channels * c.taps, 11);
    const auto d = random_values<float>(c.in_channels * c.w_in, 12);
    const auto reference = random_values<float>(c.out_channels * c.w_out, 13);
    const cpu::ChangeConvTaps taps =
        cpu::pack_change_conv_taps(weight.data(), c.out_channels, c.in_channels, c.taps);
    for (int epilogue_kind = 0; epilogue_kind < 3; ++epilogue_kind) {
      const bool relu = epilogue_kind >= 1;
      const bool add_input = epilogue_kind == 2 && c.out_channels == c.in_channels;
      const int64_t input_shift = c.shift0 - (c.taps / 2) * c.dilation;  // the middle tap's
      CAPTURE(epilogue_kind);
      std::vector<float> out(static_cast<size_t>(c.out_channels * c.w_out), -99.0F);
      cpu::ChangeConvWindow window;
      window.dilation = c.dilation;
      window.d = d.data();
      window.w_in = c.w_in;
      window.shift0 = c.shift0;
      window.out = out.data();
      window.w_out = c.w_out;
      cpu::ChangeConvEpilogue epilogue;
      if (relu) {
        epilogue.relu_reference = reference.data();
        epilogue.reference_stride = c.w_out;
      }
      epilogue.add_input = add_input;
      epilogue.input_shift = input_shift;
      cpu::conv1d_change(taps, window, epilogue);
      const std::vector<double> expected =
          oracle(c, weight, d, reference, relu, add_input, input_shift);
      double worst = 0.0;
      for (size_t i = 0; i < out.size(); ++i) {
        worst = std::max(worst, std::abs(out[i] - expected[i]) / (1.0 + std::abs(expected[i])));
      }
      CHECK(worst < 2e-5);
    }
  }
}

TEST_CASE("conv1d_change keeps its blocks in registers where AVX-512 or AVX2 with FMA is built") {
  // The explanation paths choose the kernel by this flag: an x86-64-v3 build must run (and the
  // cases above test) the AVX2 kernel, not the portable loops.
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  CHECK(cpu::kChangeConvInRegisters);
#else
  CHECK_FALSE(cpu::kChangeConvInRegisters);
#endif
}

TEST_CASE("conv1d_change writes only its output window") {
  const ChangeCase c{16, 16, 3, 2, 30, 2, 34};
  const auto weight = random_values<float>(c.out_channels * c.in_channels * c.taps, 21);
  const auto d = random_values<float>(c.in_channels * c.w_in, 22);
  const cpu::ChangeConvTaps taps =
      cpu::pack_change_conv_taps(weight.data(), c.out_channels, c.in_channels, c.taps);
  // Guard columns before and after the output: they must keep their values.
  const int64_t guard = 64;
  std::vector<float> buffer(static_cast<size_t>(c.out_channels * c.w_out + 2 * guard), 7.0F);
  cpu::ChangeConvWindow window;
  window.dilation = c.dilation;
  window.d = d.data();
  window.w_in = c.w_in;
  window.shift0 = c.shift0;
  window.out = buffer.data() + guard;
  window.w_out = c.w_out;
  cpu::conv1d_change(taps, window, {});
  for (int64_t i = 0; i < guard; ++i) {
    CHECK(buffer[static_cast<size_t>(i)] == 7.0F);
    CHECK(buffer[buffer.size() - 1 - static_cast<size_t>(i)] == 7.0F);
  }
}

}  // namespace strand
