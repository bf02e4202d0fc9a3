// The fast Conv1D kernels (dense, one-hot gather, fused Conv1D+ReLU+GlobalMaxPool) against
// their readable oracles, over many geometries (stride, dilation, asymmetric padding).
#include <doctest/doctest.h>

#include <vector>

#include "kernels/cpu/conv1d.h"
#include "kernels/cpu/conv1d_columns.h"
#include "kernels/cpu/conv1d_onehot.h"
#include "ops/conv1d.h"
#include "test_helpers.h"

namespace strand {
namespace {

using kernels::Conv1DGeometry;
namespace cpu = kernels::cpu;

struct Case {
  int64_t batch, in_channels, length, out_channels, kernel_size;
  Conv1DParams params;
};

const std::vector<Case> kCases = {
    {2, 4, 50, 16, 15, {1, 1, 0, 0}},
    {3, 4, 31, 5, 4, {2, 1, 0, 0}},
    {1, 4, 40, 7, 3, {1, 3, 2, 4}},
    {4, 4, 9, 3, 9, {1, 1, 4, 4}},
    {2, 4, 64, 33, 5, {3, 2, 1, 0}},
    {5, 4, 500, 16, 15, {1, 1, 0, 0}},
    {2, 3, 20, 6, 1, {1, 1, 0, 0}},
    {1, 6, 25, 2, 7, {2, 2, 3, 3}},
    // Wide enough for the library GEMM (kernels/cpu/gemm.h), strided, dilated, padded unevenly.
    {3, 24, 120, 20, 7, {2, 2, 3, 1}},
    // Few output channels, stride 1: the direct kernels (kernels/cpu/conv1d_direct.h), dilated
    // and padded unevenly, a 75-tap head, blocks of positions with a partial last one.
    {3, 5, 60, 2, 9, {1, 3, 5, 7}},
    {2, 8, 200, 1, 75, {1, 1, 37, 37}},
    {2, 6, 33, 4, 5, {1, 2, 0, 0}},
    // Dilation 1 with 1-4 outputs: the weight gradient's rotated-register loop (AVX-512, float),
    // taps not a multiple of its blocks, rows ending inside a vector.
    {2, 6, 150, 2, 75, {1, 1, 37, 37}},
    {2, 5, 70, 3, 7, {1, 1, 3, 3}},
    {1, 7, 45, 4, 11, {1, 1, 0, 10}},
    {2, 3, 17, 1, 3, {1, 1, 0, 0}},
};

Conv1DGeometry geometry(const Case& c) {
  return conv_geometry({c.batch, c.in_channels, c.length},
                       {c.out_channels, c.in_channels, c.kernel_size}, c.params);
}

using testing::random_values;

std::vector<uint8_t> random_codes(int64_t n, uint64_t seed) {
  Generator generator(seed);
  std::vector<uint8_t> codes(static_cast<size_t>(n));
  // Mostly bases, some N, and an out-of-range code that must also read as N.
  for (auto& code : codes)
    code = static_cast<uint8_t>(generator.next_below(6) == 5 ? 200 : generator.next_below(5));
  return codes;
}

template <typename T>
double max_diff(const std::vector<T>& a, const std::vector<T>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
  return worst;
}

}  // namespace

TEST_CASE_TEMPLATE("dense conv1d fast kernels match the oracle", T, float, double) {
  const double tolerance = sizeof(T) == 4 ? 1e-4 : 1e-11;
  for (const Case& c : kCases) {
    const Conv1DGeometry g = geometry(c);
    CAPTURE(c.length);
    CAPTURE(c.kernel_size);
    const auto x = random_values<T>(g.batch * g.in_channels * g.length, 1);
    const auto w = random_values<T>(g.out_channels * g.in_channels * g.kernel_size, 2);
    const auto bias = random_values<T>(g.out_channels, 3);
    const auto grad_out = random_values<T>(g.batch * g.out_channels * g.out_length, 4);
    std::vector<T> fast(grad_out.size()), oracle(grad_out.size());
    cpu::conv1d_forward(g, x.data(), w.data(), bias.data(), fast.data());
    cpu::conv1d_forward_reference(g, x.data(), w.data(), bias.data(), oracle.data());
    CHECK(max_diff(fast, oracle) < tolerance);
    std::vector<T> gx_fast(x.size()), gx_oracle(x.size());
    cpu::conv1d_backward_input(g, grad_out.data(), w.data(), gx_fast.data());
    cpu::conv1d_backward_input_reference(g, grad_out.data(), w.data(), gx_oracle.data());
    CHECK(max_diff(gx_fast, gx_oracle) < tolerance);
    std::vector<T> gw_fast(w.size()), gw_oracle(w.size());
    cpu::conv1d_backward_weight(g, grad_out.data(), x.data(), gw_fast.data());
    cpu::conv1d_backward_weight_reference(g, grad_out.data(), x.data(), gw_oracle.data());
    CHECK(max_diff(gw_fast, gw_oracle) < tolerance * 10);
  }
}

TEST_CASE_TEMPLATE("one-hot gather conv1d matches the dense oracle on expanded codes", T, float,
                   double) {
  const double tolerance = sizeof(T) == 4 ? 1e-4 : 1e-11;
  for (Case c : kCases) {
    c.in_channels = 4;
    const Conv1DGeometry g = geometry(c);
    const auto codes = random_codes(g.batch * g.length, 5);
    const auto w = random_values<T>(g.out_channels * 4 * g.kernel_size, 6);
    const auto bias = random_values<T>(g.out_channels, 7);
    std::vector<T> fast(static_cast<size_t>(g.batch * g.out_channels * g.out_length)),
        oracle(fast.size());
    cpu::conv1d_onehot_forward(g, codes.data(), w.data(), bias.data(), fast.data());
    cpu::conv1d_onehot_forward_reference(g, codes.data(), w.data(), bias.data(), oracle.data());
    CHECK(max_diff(fast, oracle) < tolerance);
    // Weight gradient: the scatter equals the dense weight gradient of the one-hot input.
    const auto grad_out = random_values<T>(static_cast<int64_t>(fast.size()), 8);
    std::vector<T> one_hot(static_cast<size_t>(g.batch * 4 * g.length));
    cpu::one_hot_from_codes(g.batch, g.length, codes.data(), one_hot.data());
    std::vector<T> gw_fast(w.size()), gw_oracle(w.size());
    cpu::conv1d_onehot_backward_weight(g, grad_out.data(), codes.data(), gw_fast.data());
    cpu::conv1d_backward_weight_reference(g, grad_out.data(), one_hot.data(), gw_oracle.data());
    CHECK(max_diff(gw_fast, gw_oracle) < tolerance * 10);
  }
}

TEST_CASE_TEMPLATE("fused conv1d relu globalmaxpool matches conv then relu then max", T, float,
                   double) {
  for (Case c : kCases) {
    for (bool use_codes : {true, false}) {
      if (use_codes) c.in_channels = 4;
      const Conv1DGeometry g = geometry(c);
      const auto codes = random_codes(g.batch * g.length, 9);
      const auto x = random_values<T>(g.batch * g.in_channels * g.length, 10);
      const auto w = random_values<T>(g.out_channels * g.in_channels * g.kernel_size, 11);
      const auto bias = random_values<T>(g.out_channels, 12);
      const size_t n_rows = static_cast<size_t>(g.batch * g.out_channels);
      std::vector<T> out(n_rows), out_oracle(n_rows);
      std::vector<int64_t> arg(n_rows), arg_oracle(n_rows);
      if (use_codes) {
        cpu::conv1d_relu_max_onehot(g, codes.data(), w.data(), bias.data(), out.data(), arg.data());
        cpu::conv1d_relu_max_onehot_reference(g, codes.data(), w.data(), bias.data(),
                                              out_oracle.data(), arg_oracle.data());
      } else {
        cpu::conv1d_relu_max_dense(g, x.data(), w.data(), bias.data(), out.data(), arg.data());
        cpu::conv1d_relu_max_dense_reference(g, x.data(), w.data(), bias.data(), out_oracle.data(),
                                             arg_oracle.data());
      }
      CHECK(max_diff(out, out_oracle) < (sizeof(T) == 4 ? 1e-4 : 1e-11));
      // Argmax can only differ on float ties; count the rows where it does and the relu is open.
      int64_t mismatched = 0;
      for (size_t i = 0; i < n_rows; ++i) mismatched += (arg[i] != arg_oracle[i] && out[i] > 0);
      CHECK(mismatched <= (sizeof(T) == 4 ? 1 : 0));

      // Backward: the scatter equals the dense chain's gradients restricted to the argmax.
      const auto grad_out = random_values<T>(static_cast<int64_t>(n_rows), 13);
      std::vector<T> conv_grad(static_cast<size_t>(g.batch * g.out_channels * g.out_length), T(0));
      for (size_t row = 0; row < n_rows; ++row) {
        if (out_oracle[row] > 0) conv_grad[row * g.out_length + arg_oracle[row]] = grad_out[row];
      }
      std::vector<T> one_hot(static_cast<size_t>(g.batch * 4 * g.length));
      cpu::one_hot_from_codes(g.batch, g.length, codes.data(), one_hot.data());
      const T* input = use_codes ? one_hot.data() : x.data();
      std::vector<T> gw(w.size()), gw_oracle(w.size()), gb(bias.size()), gx(x.size()),
          gx_oracle(x.size());
      cpu::conv1d_relu_max_backward(g, grad_out.data(), use_codes ? codes.data() : nullptr,
                                    use_codes ? nullptr : x.data(), w.data(), out_oracle.data(),
                                    arg_oracle.data(), use_codes ? nullptr : gx.data(), gw.data(),
                                    gb.data());
      cpu::conv1d_backward_weight_reference(g, conv_grad.data(), input, gw_oracle.data());
      CHECK(max_diff(gw, gw_oracle) < 1e-4);
      if (!use_codes) {
        cpu::conv1d_backward_input_reference(g, conv_grad.data(), w.data(), gx_oracle.data());
        CHECK(max_diff(gx, gx_oracle) < 1e-4);
      }
    }
  }
}

TEST_CASE_TEMPLATE("conv1d with a fused relu equals conv1d then relu", T, float, double) {
  for (Case c : kCases) {
    for (const bool use_codes : {true, false}) {
      if (use_codes) c.in_channels = 4;
      const Conv1DGeometry g = geometry(c);
      const auto codes = random_codes(g.batch * g.length, 14);
      const auto x = random_values<T>(g.batch * g.in_channels * g.length, 15);
      const auto w = random_values<T>(g.out_channels * g.in_channels * g.kernel_size, 16);
      const auto bias = random_values<T>(g.out_channels, 17);
      const auto outputs = static_cast<size_t>(g.batch * g.out_channels * g.out_length);
      std::vector<T> fused(outputs), plain(outputs);
      for (const T* b : {bias.data(), static_cast<const T*>(nullptr)}) {
        if (use_codes) {
          cpu::conv1d_onehot_forward(g, codes.data(), w.data(), b, fused.data(), true);
          cpu::conv1d_onehot_forward(g, codes.data(), w.data(), b, plain.data());
        } else {
          cpu::conv1d_forward(g, x.data(), w.data(), b, fused.data(), true);
          cpu::conv1d_forward(g, x.data(), w.data(), b, plain.data());
        }
        for (T& v : plain) v = v > T(0) ? v : T(0);
        CHECK(fused == plain);  // the same arithmetic, bit for bit
      }
    }
  }
}

TEST_CASE_TEMPLATE("conv1d_backward (all gradients at once) matches the oracles", T, float,
                   double) {
  const double tolerance = sizeof(T) == 4 ? 1e-4 : 1e-11;
  for (Case c : kCases) {
    for (const bool use_codes : {true, false}) {
      for (const bool relu : {true, false}) {
        CAPTURE(c.length);
        CAPTURE(c.kernel_size);
        CAPTURE(use_codes);
        CAPTURE(relu);
        if (use_codes) c.in_channels = 4;
        const Conv1DGeometry g = geometry(c);
        const auto codes = random_codes(g.batch * g.length, 18);
        const auto x = random_values<T>(g.batch * g.in_channels * g.length, 19);
        const auto w = random_values<T>(g.out_channels * g.in_channels * g.kernel_size, 20);
        const auto outputs = g.batch * g.out_channels * g.out_length;
        const auto grad_out = random_values<T>(outputs, 21);
        const auto relu_out = random_values<T>(outputs, 22);  // about half "closed"
        const T* mask = relu ? relu_out.data() : nullptr;
        const uint8_t* code_data = use_codes ? codes.data() : nullptr;
        std::vector<T> gx(x.size()), gx_oracle(x.size()), gw(w.size()), gw_oracle(w.size());
        std::vector<T> gb(static_cast<size_t>(g.out_channels)), gb_oracle(gb.size());
        T* gx_data = use_codes ? nullptr : gx.data();
        T* gx_oracle_data = use_codes ? nullptr : gx_oracle.data();
        cpu::conv1d_backward(g, grad_out.data(), x.data(), code_data, w.data(), mask, gx_data,
                             gw.data(), gb.data());
        cpu::conv1d_backward_reference(g, grad_out.data(), x.data(), code_data, w.data(), mask,
                                       gx_oracle_data, gw_oracle.data(), gb_oracle.data());
        CHECK(max_diff(gw, gw_oracle) < tolerance * 10);
        CHECK(max_diff(gb, gb_oracle) < tolerance * 10);
        if (!use_codes) CHECK(max_diff(gx, gx_oracle) < tolerance);
      }
    }
  }
}

TEST_CASE("one_hot: a row per base, a zero column for N, a float result only") {
  // codes (2, 3): A C T / N G A (codes >= 4 are N)
  const Tensor codes = Tensor::from_vector(std::vector<uint8_t>{0, 1, 3, 4, 2, 0}, {2, 3});
  const Tensor out = ops::one_hot(codes, DType::kFloat64);
  CHECK(out.shape() == Shape{2, 4, 3});
  CHECK(out.to_vector<double>() == std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1,  //
                                                       0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0});
  CHECK_THROWS_WITH_AS(ops::one_hot(codes, DType::kInt32),
                       doctest::Contains("one_hot: expected a float32 or float64 result"), Error);
}

}  // namespace strand
