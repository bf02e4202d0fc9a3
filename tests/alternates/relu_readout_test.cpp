// alternates/relu_readout.h against a float64 oracle: a readout of a residual block's crop sums,
// x + ReLU(conv(x)), changed by dx over a window, with a third of the units placed where the
// change switches their ReLU or just fails to.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "alternates/relu_readout.h"
#include "test_helpers.h"

namespace strand {
namespace {

using testing::random_values;

}  // namespace

TEST_CASE("ReluReadout equals the block's convolved change read out, switching units included") {
  if (!alternates::ReluReadout::kAvailable)
    STRAND_SKIP("this build has neither AVX-512 BF16 nor AVX2");
  const int64_t channels = 40, taps = 3, dilation = 4, length = 160, readouts = 2;
  const int64_t crop_lo = 30, crop_hi = 130;
  Conv1DParams params;
  params.dilation = dilation;
  params.pad_left = dilation;  // 'same': tap k reads column j - dilation + k * dilation
  params.pad_right = dilation;
  const auto weight = random_values<float>(channels * channels * taps, 51);
  const auto readout = random_values<float>(readouts * channels, 52);
  for (const auto& [start, width] :
       std::vector<std::pair<int64_t, int64_t>>{{60, 33}, {0, 20}, {140, 20}, {25, 9}, {126, 7}}) {
    CAPTURE(start);
    CAPTURE(width);
    auto dx = random_values<float>(channels * width, 53 + static_cast<uint64_t>(start));
    // The block's change of the convolution, in float64: d (O, L).
    std::vector<double> d(static_cast<size_t>(channels * length), 0.0);
    for (int64_t o = 0; o < channels; ++o) {
      for (int64_t j = 0; j < length; ++j) {
        for (int64_t k = 0; k < taps; ++k) {
          const int64_t i = j - dilation + k * dilation - start;
          if (i < 0 || i >= width) continue;
          for (int64_t c = 0; c < channels; ++c) {
            d[static_cast<size_t>(o * length + j)] +=
                static_cast<double>(weight[static_cast<size_t>((o * channels + c) * taps + k)]) *
                dx[static_cast<size_t>(c * width + i)];
          }
        }
      }
    }
    // Pre-activations: every third unit where the change switches its ReLU (or just fails to).
    const auto draw = random_values<float>(channels * length, 54);
    std::vector<float> pre(draw.size());
    for (size_t u = 0; u < pre.size(); ++u) {
      pre[u] = u % 3 == 0 ? static_cast<float>(-d[u] * (1.0 + draw[u])) : draw[u];
    }
    std::vector<double> expected(readouts, 0.0);
    double scale = 1.0;
    int64_t switching = 0;
    for (int64_t o = 0; o < channels; ++o) {
      double sum = 0.0;
      for (int64_t j = crop_lo; j < crop_hi; ++j) {
        const double a = pre[static_cast<size_t>(o * length + j)];
        const double change = d[static_cast<size_t>(o * length + j)];
        sum += std::max(a + change, 0.0) - std::max(a, 0.0);
        switching += (a > 0.0) != (a + change > 0.0) ? 1 : 0;
        if (j >= start && j < start + width) sum += dx[static_cast<size_t>(o * width + j - start)];
      }
      for (int64_t t = 0; t < readouts; ++t) {
        expected[static_cast<size_t>(t)] += readout[static_cast<size_t>(t * channels + o)] * sum;
        scale += std::abs(readout[static_cast<size_t>(t * channels + o)] * sum);
      }
    }
    const alternates::ReluReadout fold(
        Tensor::from_vector(weight, {channels, channels, taps}), params, length, length,
        Tensor::from_vector(readout, {readouts, channels}), crop_lo, crop_hi);
    const Tensor pre_tensor = Tensor::from_vector(pre, {1, channels, length});
    const Tensor functional = fold.functional(pre_tensor);
    std::vector<float> out(readouts, 0.0F);
    const std::vector<int64_t> slots = {0}, starts = {start};
    fold.add_changes(pre_tensor, functional, slots, Tensor::from_vector(dx, {1, channels, width}),
                     starts, out.data());
    if (start == 60) CHECK(switching > 0);  // the window inside the crop switches units
    for (int64_t t = 0; t < readouts; ++t) {
      CAPTURE(t);
      CHECK(std::abs(out[static_cast<size_t>(t)] - expected[static_cast<size_t>(t)]) <=
            2e-6 * scale);
    }
  }
}

}  // namespace strand
