// kernels/cpu/conv1d_change_screen.h against a float64 oracle: every unit whose ReLU the change
// switches is left undecided (whatever else is), units far from zero are decided, and the input
// packing rounds to bfloat16 (AVX-512 BF16) or to 16-bit integers of one step (AVX2) and sums
// the columns' magnitudes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include "kernels/cpu/conv1d_change_screen.h"
#include "test_helpers.h"

namespace strand {
namespace {

namespace cpu = kernels::cpu;
using testing::random_values;

struct ScreenCase {
  int64_t out_channels, in_channels, taps, dilation, w_in, shift0, w_out;
};

// The change's convolution (O, w_out) and, per unit, sum |W| |d| over its inputs, in float64.
void oracle(const ScreenCase& c, const std::vector<float>& weight, const std::vector<float>& d,
            std::vector<double>& change, std::vector<double>& magnitude) {
  change.assign(static_cast<size_t>(c.out_channels * c.w_out), 0.0);
  magnitude.assign(change.size(), 0.0);
  for (int64_t o = 0; o < c.out_channels; ++o) {
    for (int64_t j = 0; j < c.w_out; ++j) {
      for (int64_t k = 0; k < c.taps; ++k) {
        const int64_t i = j - (c.shift0 - k * c.dilation);
        if (i < 0 || i >= c.w_in) continue;
        for (int64_t ch = 0; ch < c.in_channels; ++ch) {
          const double w = weight[static_cast<size_t>((o * c.in_channels + ch) * c.taps + k)];
          const double x = d[static_cast<size_t>(ch * c.w_in + i)];
          change[static_cast<size_t>(o * c.w_out + j)] += w * x;
          magnitude[static_cast<size_t>(o * c.w_out + j)] += std::abs(w * x);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("screen_relu_crossings leaves every switching unit undecided") {
  if (!cpu::kChangeScreenAvailable) STRAND_SKIP("this build has neither AVX-512 BF16 nor AVX2");
  const std::vector<ScreenCase> cases = {
      {64, 64, 3, 256, 529, 256, 1041},  // a BPNet block's whole window
      {64, 64, 3, 8, 33, 5, 40},         // clipped: taps leave the output on the right
      {64, 64, 3, 4, 25, -3, 30},        // clipped on the left: a tap reads before d
      {13, 33, 5, 1, 47, 2, 51},         // an odd channel count, rows not whole blocks
      {16, 16, 8, 3, 60, 14, 97},        // the most taps it takes
      {9, 9, 1, 1, 1, 0, 1},             // one column
  };
  for (const ScreenCase& c : cases) {
    CAPTURE(c.out_channels);
    CAPTURE(c.in_channels);
    CAPTURE(c.dilation);
    CAPTURE(c.w_out);
    const auto weight = random_values<float>(c.out_channels * c.in_channels * c.taps, 31);
    auto d = random_values<float>(c.in_channels * c.w_in, 32);
    for (size_t i = 0; i < d.size(); i += 7) d[i] = 0.0F;  // zeros, as a change has
    // Columns far smaller than the largest, as a change fading away from its allele has: the
    // integer screen's step is the largest column's.
    for (int64_t ch = 0; ch < c.in_channels; ++ch) {
      for (int64_t i = c.w_in / 2; i < c.w_in; ++i)
        d[static_cast<size_t>(ch * c.w_in + i)] *= 1e-3F;
    }
    std::vector<double> change, magnitude;
    oracle(c, weight, d, change, magnitude);
    // References: a third sit where the change pushes them across zero or just short of it, a
    // third just beyond the bound of the estimate's error, the rest far from zero.
    const auto draw = random_values<float>(c.out_channels * c.w_out, 33);
    std::vector<float> reference(change.size());
    for (size_t u = 0; u < reference.size(); ++u) {
      const double scale = 0.5 * (1.0 + draw[u]);  // in [0, 1)
      if (u % 3 == 0) {
        reference[u] = static_cast<float>(-change[u] * 2.0 * scale);
      } else if (u % 3 == 1) {
        reference[u] =
            static_cast<float>(-change[u] + (draw[u] > 0 ? 1 : -1) * 0.02 * magnitude[u]);
      } else {
        reference[u] = static_cast<float>((draw[u] > 0 ? 1 : -1) * (1.0 + 10.0 * magnitude[u]));
      }
    }
    const cpu::ChangeScreenTaps taps =
        cpu::pack_change_screen_taps(weight.data(), c.out_channels, c.in_channels, c.taps);
    std::vector<uint32_t> pairs(static_cast<size_t>((c.in_channels + 1) / 2 * c.w_in));
    std::vector<float> norms(static_cast<size_t>(c.w_in));
    cpu::ChangeScreenWindow window;
    window.input_step =
        cpu::pack_change_screen_input(taps, d.data(), c.w_in, pairs.data(), norms.data());
    window.dilation = c.dilation;
    window.pairs = pairs.data();
    window.norms = norms.data();
    window.w_in = c.w_in;
    window.shift0 = c.shift0;
    window.reference = reference.data();
    window.reference_stride = c.w_out;
    window.w_out = c.w_out;
    std::vector<int32_t> undecided;
    cpu::screen_relu_crossings(taps, window, undecided);
    const std::set<int32_t> open(undecided.begin(), undecided.end());
    CHECK(open.size() == undecided.size());  // each unit at most once
    int64_t switching = 0, missed = 0, far_open = 0;
    for (size_t u = 0; u < reference.size(); ++u) {
      const double r = reference[u];
      const bool switches = (r > 0.0) != (r + change[u] > 0.0);
      const bool is_open = open.count(static_cast<int32_t>(u)) != 0;
      switching += switches ? 1 : 0;
      missed += switches && !is_open ? 1 : 0;
      far_open += u % 3 == 2 && is_open ? 1 : 0;
    }
    CHECK(switching > 0);
    CHECK(missed == 0);
    CHECK(far_open == 0);
  }
}

TEST_CASE("pack_change_screen_input rounds to the screen's pairs and sums magnitudes") {
  if (!cpu::kChangeScreenAvailable) STRAND_SKIP("this build has neither AVX-512 BF16 nor AVX2");
  const int64_t channels = 5, w_in = 37;
  const auto weight = random_values<float>(3 * channels * 2, 40);
  const cpu::ChangeScreenTaps taps = cpu::pack_change_screen_taps(weight.data(), 3, channels, 2);
  auto d = random_values<float>(channels * w_in, 41);
  d[3] = 1.0F + 1.0F / 256.0F;  // bfloat16: a tie, rounds to the even 1.0
  d[4] = 1.0F + 3.0F / 256.0F;  // bfloat16: a tie, rounds up to the even 1 + 4/256
  std::vector<uint32_t> pairs(static_cast<size_t>((channels + 1) / 2 * w_in));
  std::vector<float> norms(static_cast<size_t>(w_in));
  const float step =
      cpu::pack_change_screen_input(taps, d.data(), w_in, pairs.data(), norms.data());
  const auto decode = [&](uint32_t half) {
    if (cpu::kChangeScreenInIntegers) {
      return static_cast<float>(static_cast<int16_t>(static_cast<uint16_t>(half))) * step;
    }
    const uint32_t bits = half << 16;
    float value = 0.0F;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  };
  float largest = 0.0F;
  for (const float x : d) largest = std::max(largest, std::abs(x));
  if (cpu::kChangeScreenInIntegers) {
    CHECK(step == largest / static_cast<float>(taps.largest_input));
  } else {
    CHECK(step == 1.0F);
  }
  for (int64_t c = 0; c < channels + 1; ++c) {
    for (int64_t j = 0; j < w_in; ++j) {
      const uint32_t word = pairs[static_cast<size_t>((c / 2) * w_in + j)];
      const float value = decode(c % 2 == 0 ? word & 0xFFFFU : word >> 16);
      const float exact = c < channels ? d[static_cast<size_t>(c * w_in + j)] : 0.0F;
      if (cpu::kChangeScreenInIntegers) {
        CHECK(std::abs(value - exact) <= 0.5001F * step);
      } else {
        CHECK(std::abs(value - exact) <= std::abs(exact) / 256.0F);
      }
    }
  }
  if (!cpu::kChangeScreenInIntegers) {
    CHECK(decode(pairs[3] & 0xFFFFU) == 1.0F);
    CHECK(decode(pairs[4] & 0xFFFFU) == 1.0F + 4.0F / 256.0F);
  }
  for (int64_t j = 0; j < w_in; ++j) {
    double sum = 0.0;
    for (int64_t c = 0; c < channels; ++c) sum += std::abs(d[static_cast<size_t>(c * w_in + j)]);
    CHECK(norms[static_cast<size_t>(j)] == doctest::Approx(sum).epsilon(1e-6));
  }
}

TEST_CASE("screen_relu_crossings leaves every unit undecided where a change is not finite") {
  if (!cpu::kChangeScreenInIntegers) STRAND_SKIP("the bfloat16 screen does not scale its input");
  const int64_t channels = 4, w_in = 9;
  const auto weight = random_values<float>(channels * channels * 3, 42);
  const cpu::ChangeScreenTaps taps =
      cpu::pack_change_screen_taps(weight.data(), channels, channels, 3);
  auto d = random_values<float>(channels * w_in, 43);
  d[5] = std::numeric_limits<float>::infinity();
  std::vector<uint32_t> pairs(static_cast<size_t>((channels + 1) / 2 * w_in));
  std::vector<float> norms(static_cast<size_t>(w_in));
  std::vector<float> reference(static_cast<size_t>(channels * w_in), 100.0F);
  cpu::ChangeScreenWindow window;
  window.input_step =
      cpu::pack_change_screen_input(taps, d.data(), w_in, pairs.data(), norms.data());
  CHECK(std::isnan(window.input_step));
  window.pairs = pairs.data();
  window.norms = norms.data();
  window.w_in = w_in;
  window.shift0 = 1;
  window.reference = reference.data();
  window.reference_stride = w_in;
  window.w_out = w_in;
  std::vector<int32_t> undecided;
  cpu::screen_relu_crossings(taps, window, undecided);
  CHECK(undecided.size() == static_cast<size_t>(channels * w_in));
}

}  // namespace strand
