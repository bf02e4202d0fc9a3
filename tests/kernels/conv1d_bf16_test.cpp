// The dense Conv1D kernels at GemmPrecision::kBfloat16 against the float64 oracles run on the
// bfloat16-rounded operands (forward: x and w; input gradient: grad_out and w; weight gradient:
// grad_out and x), within the float32 summation's bound.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/bfloat16.h"
#include "kernels/cpu/conv1d.h"
#include "ops/conv1d.h"
#include "test_helpers.h"

namespace strand {
namespace {

using kernels::Conv1DGeometry;
using testing::random_values;
namespace cpu = kernels::cpu;
constexpr cpu::GemmPrecision kBf16 = cpu::GemmPrecision::kBfloat16;

struct Case {
  int64_t batch, in_channels, length, out_channels, kernel_size;
  Conv1DParams params;
};

// GEMM-backed geometries (more than 4 output channels): plain, strided, dilated and unevenly
// padded, short outputs (samples grouped into one GEMM) and long ones.
const std::vector<Case> kCases = {
    {3, 24, 120, 20, 7, {2, 2, 3, 1}}, {2, 16, 300, 32, 11, {1, 1, 5, 5}},
    {5, 8, 40, 12, 5, {1, 1, 0, 0}},   {4, 30, 60, 10, 4, {3, 1, 2, 0}},
    {2, 6, 33, 9, 5, {1, 2, 0, 0}},
};

Conv1DGeometry geometry(const Case& c) {
  return conv_geometry({c.batch, c.in_channels, c.length},
                       {c.out_channels, c.in_channels, c.kernel_size}, c.params);
}

std::vector<double> rounded(const std::vector<float>& values) {
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = kernels::round_to_bfloat16(values[i]);
  return out;
}
std::vector<double> magnitudes(const std::vector<double>& values) {
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = std::abs(values[i]);
  return out;
}

// Every |fast - exact| within terms * 2^-24 * magnitude (float32 sums of exact products), where
// `terms` bounds the roundings along an element's sum.
void check_within(const std::vector<float>& fast, const std::vector<double>& exact,
                  const std::vector<double>& magnitude, double terms, const char* what) {
  REQUIRE(fast.size() == exact.size());
  double worst_excess = 0.0;
  for (size_t i = 0; i < fast.size(); ++i) {
    const double bound = terms * 0x1p-24 * magnitude[i] + 1e-30;
    worst_excess = std::max(worst_excess, std::abs(fast[i] - exact[i]) - bound);
  }
  CAPTURE(what);
  CHECK(worst_excess <= 0.0);
}

}  // namespace

TEST_CASE("dense conv1d in bfloat16 equals the float64 oracle of the rounded operands") {
  const std::string reason = cpu::bf16_gemm_unavailable_reason();
  if (!reason.empty()) STRAND_SKIP(reason.c_str());
  for (const Case& c : kCases) {
    const Conv1DGeometry g = geometry(c);
    CAPTURE(c.in_channels);
    CAPTURE(c.length);
    CAPTURE(c.kernel_size);
    const int64_t n_x = g.batch * g.in_channels * g.length;
    const int64_t n_w = g.out_channels * g.in_channels * g.kernel_size;
    const int64_t n_out = g.batch * g.out_channels * g.out_length;
    const std::vector<float> x = random_values<float>(n_x, 1), w = random_values<float>(n_w, 2);
    const std::vector<float> bias = random_values<float>(g.out_channels, 3);
    const std::vector<float> grad_out = random_values<float>(n_out, 4);
    const std::vector<double> xr = rounded(x), wr = rounded(w), gr = rounded(grad_out);
    const std::vector<double> xa = magnitudes(xr), wa = magnitudes(wr), ga = magnitudes(gr);
    const double rows = static_cast<double>(g.in_channels * g.kernel_size);
    const double sums = static_cast<double>(g.batch * g.out_length);

    // forward, the bias added after the product (and its float32 rounding)
    std::vector<float> out(static_cast<size_t>(n_out));
    cpu::conv1d_forward<float>(g, x.data(), w.data(), bias.data(), out.data(), false, kBf16);
    std::vector<double> exact(out.size()), magnitude(out.size()), bias_d(bias.begin(), bias.end());
    cpu::conv1d_forward_reference<double>(g, xr.data(), wr.data(), bias_d.data(), exact.data());
    const std::vector<double> bias_abs = magnitudes(bias_d);
    cpu::conv1d_forward_reference<double>(g, xa.data(), wa.data(), bias_abs.data(),
                                          magnitude.data());
    check_within(out, exact, magnitude, rows + 4, "forward");

    // input gradient
    std::vector<float> grad_x(static_cast<size_t>(n_x));
    cpu::conv1d_backward_input<float>(g, grad_out.data(), w.data(), grad_x.data(), kBf16);
    std::vector<double> gx_exact(grad_x.size()), gx_magnitude(grad_x.size());
    cpu::conv1d_backward_input_reference<double>(g, gr.data(), wr.data(), gx_exact.data());
    cpu::conv1d_backward_input_reference<double>(g, ga.data(), wa.data(), gx_magnitude.data());
    check_within(grad_x, gx_exact, gx_magnitude, g.out_channels * g.kernel_size + 4.0,
                 "backward_input");

    // weight gradient, alone and from the one-pass backward (with the bias gradient, which sums
    // the unrounded grad_out in double)
    std::vector<float> grad_w(static_cast<size_t>(n_w));
    cpu::conv1d_backward_weight<float>(g, grad_out.data(), x.data(), grad_w.data(), kBf16);
    std::vector<double> gw_exact(grad_w.size()), gw_magnitude(grad_w.size());
    cpu::conv1d_backward_weight_reference<double>(g, gr.data(), xr.data(), gw_exact.data());
    cpu::conv1d_backward_weight_reference<double>(g, ga.data(), xa.data(), gw_magnitude.data());
    check_within(grad_w, gw_exact, gw_magnitude, sums + 8, "backward_weight");

    std::vector<float> one_pass_x(grad_x.size()), one_pass_w(grad_w.size());
    std::vector<float> grad_bias(static_cast<size_t>(g.out_channels));
    cpu::conv1d_backward<float>(g, grad_out.data(), x.data(), nullptr, w.data(), nullptr,
                                one_pass_x.data(), one_pass_w.data(), grad_bias.data(), kBf16);
    check_within(one_pass_x, gx_exact, gx_magnitude, g.out_channels * g.kernel_size + 4.0,
                 "conv1d_backward grad_x");
    check_within(one_pass_w, gw_exact, gw_magnitude, sums + 8, "conv1d_backward grad_w");
    for (int64_t o = 0; o < g.out_channels; ++o) {
      double total = 0.0, size = 0.0;
      for (int64_t b = 0; b < g.batch; ++b) {
        for (int64_t t = 0; t < g.out_length; ++t) {
          const float v =
              grad_out[static_cast<size_t>((b * g.out_channels + o) * g.out_length + t)];
          total += v;
          size += std::abs(v);
        }
      }
      CHECK(std::abs(grad_bias[static_cast<size_t>(o)] - total) <= 0x1p-23 * size);
    }
  }
}

}  // namespace strand
