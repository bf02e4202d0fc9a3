// The vectorised 1-D pooling kernels against their readable oracles (kernels/cpu/pooling.h):
// non-overlapping, overlapping and gapped windows, ceil_mode's cut-short last window, ties (the
// first argmax wins) and NaN (a NaN wins and stays), in float32 and float64. Results are
// compared exactly: both versions do the same arithmetic per window.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/pooling.h"
#include "test_helpers.h"

namespace strand {
namespace {

using kernels::Pool1DGeometry;
namespace cpu = kernels::cpu;

struct Window {
  int64_t kernel, stride;
  bool ceil_mode;
};

const std::vector<Window> kWindows = {
    {3, 3, false}, {4, 4, false}, {4, 4, true}, {2, 2, true},  {3, 2, true}, {5, 5, false},
    {1, 3, true},  {3, 5, false}, {7, 7, true}, {4, 1, false}, {2, 3, true},
};

// Values on a coarse grid (many ties), with a NaN now and then.
template <typename T>
std::vector<T> pooled_input(int64_t n, uint64_t seed) {
  std::vector<T> values = testing::random_values<T>(n, seed);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<T>(std::round(static_cast<double>(values[i]) * 4.0) / 4.0);
    if (i % 37 == 11) values[i] = std::numeric_limits<T>::quiet_NaN();
  }
  return values;
}

template <typename T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  }
  return true;
}

template <typename T>
void check_pooling() {
  for (const Window& w : kWindows) {
    for (const int64_t length : {7, 12, 13, 40, 97}) {
      Pool1DGeometry g;
      g.rows = 6;
      g.length = length;
      g.kernel = w.kernel;
      g.stride = w.stride;
      g.out_length = kernels::pool1d_out_length(length, w.kernel, w.stride, w.ceil_mode);
      if (g.out_length == 0) continue;
      CAPTURE(w.kernel);
      CAPTURE(w.stride);
      CAPTURE(w.ceil_mode);
      CAPTURE(length);
      const std::vector<T> x = pooled_input<T>(g.rows * length, 1);
      const std::vector<T> grad_out = testing::random_values<T>(g.rows * g.out_length, 2);
      const auto outputs = static_cast<size_t>(g.rows * g.out_length);
      const auto inputs = static_cast<size_t>(g.rows * length);

      std::vector<T> out(outputs), out_oracle(outputs);
      std::vector<int64_t> argmax(outputs), argmax_oracle(outputs);
      cpu::max_pool1d_forward(g, x.data(), out.data(), argmax.data());
      cpu::max_pool1d_forward_reference(g, x.data(), out_oracle.data(), argmax_oracle.data());
      CHECK(same(out, out_oracle));
      CHECK(argmax == argmax_oracle);

      std::vector<T> grad_x(inputs, T(7)), grad_x_oracle(inputs);
      cpu::max_pool1d_backward(g, grad_out.data(), argmax.data(), grad_x.data());
      cpu::max_pool1d_backward_reference(g, grad_out.data(), argmax.data(), grad_x_oracle.data());
      CHECK(same(grad_x, grad_x_oracle));

      cpu::avg_pool1d_forward(g, x.data(), out.data());
      cpu::avg_pool1d_forward_reference(g, x.data(), out_oracle.data());
      CHECK(same(out, out_oracle));

      std::fill(grad_x.begin(), grad_x.end(), T(7));  // overwritten, never accumulated into
      cpu::avg_pool1d_backward(g, grad_out.data(), grad_x.data());
      cpu::avg_pool1d_backward_reference(g, grad_out.data(), grad_x_oracle.data());
      CHECK(same(grad_x, grad_x_oracle));
    }
  }
}

TEST_CASE("pooling kernels match their oracles in float32") { check_pooling<float>(); }

TEST_CASE("pooling kernels match their oracles in float64") { check_pooling<double>(); }

}  // namespace
}  // namespace strand
