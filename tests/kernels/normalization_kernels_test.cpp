// The fused batch normalisation kernels against their readable oracles (kernels/cpu/
// batch_norm.h), for (B, C) and (B, C, L) inputs, training and evaluation, with and without the
// fused ReLU; and their results independent of the thread count.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/normalization.h"
#include "test_helpers.h"

namespace strand {
namespace {

using kernels::BatchNormGeometry;
using testing::random_values;
namespace cpu = kernels::cpu;

// (B, C, L), L = 1 standing for (B, C). Channel counts above 64 span several channel blocks.
const std::vector<BatchNormGeometry> kShapes = {
    {4, 3, 5}, {2, 7, 1}, {64, 130, 1}, {3, 5, 97}, {16, 20, 40}, {2, 1, 300}, {5, 66, 3},
};

template <typename T>
double max_diff(const std::vector<T>& a, const std::vector<T>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return worst;
}

// Everything one forward and backward pass produces.
template <typename T>
struct Results {
  std::vector<T> out, mean, invstd, running_mean, running_var, grad_x, grad_weight, grad_bias;
};

// Inputs with an offset (mean 3, so the variance is not taken about zero), scaled weights.
template <typename T>
Results<T> run(const BatchNormGeometry& g, bool training, bool relu, bool reference) {
  const int64_t n = g.batch * g.channels * g.length;
  std::vector<T> x = random_values<T>(n, 1);
  for (T& v : x) v = static_cast<T>(3.0 + 2.0 * static_cast<double>(v));
  const std::vector<T> weight = random_values<T>(g.channels, 2);
  const std::vector<T> bias = random_values<T>(g.channels, 3);
  const std::vector<T> grad_out = random_values<T>(n, 4);
  Results<T> r;
  r.running_mean = random_values<T>(g.channels, 5);
  r.running_var = random_values<T>(g.channels, 6);
  for (T& v : r.running_var) v = static_cast<T>(1.5 + static_cast<double>(v));
  r.out.resize(static_cast<size_t>(n));
  r.grad_x.resize(static_cast<size_t>(n));
  for (auto* v : {&r.mean, &r.invstd, &r.grad_weight, &r.grad_bias}) {
    v->resize(static_cast<size_t>(g.channels));
  }
  if (training && reference) {
    cpu::batch_norm_forward_training_reference(g, x.data(), weight.data(), bias.data(), 0.1, 1e-5,
                                               relu, r.running_mean.data(), r.running_var.data(),
                                               r.out.data(), r.mean.data(), r.invstd.data());
  } else if (training) {
    cpu::batch_norm_forward_training(g, x.data(), weight.data(), bias.data(), 0.1, 1e-5, relu,
                                     r.running_mean.data(), r.running_var.data(), r.out.data(),
                                     r.mean.data(), r.invstd.data());
  } else {
    // Evaluation has no separate oracle: normalising with given statistics is one formula.
    cpu::batch_norm_forward_inference(g, x.data(), weight.data(), bias.data(),
                                      r.running_mean.data(), r.running_var.data(), 1e-5, relu,
                                      r.out.data(), r.mean.data(), r.invstd.data());
  }
  const auto backward =
      reference ? cpu::batch_norm_backward_reference<T> : cpu::batch_norm_backward<T>;
  backward(g, grad_out.data(), x.data(), r.out.data(), weight.data(), r.mean.data(),
           r.invstd.data(), training, relu, r.grad_x.data(), r.grad_weight.data(),
           r.grad_bias.data());
  return r;
}

template <typename T>
void check_against_oracle(double tolerance) {
  for (const BatchNormGeometry& g : kShapes) {
    for (const bool training : {true, false}) {
      for (const bool relu : {false, true}) {
        CAPTURE(g.batch);
        CAPTURE(g.channels);
        CAPTURE(g.length);
        CAPTURE(training);
        CAPTURE(relu);
        const Results<T> fast = run<T>(g, training, relu, false);
        const Results<T> oracle = run<T>(g, training, relu, true);
        CHECK(max_diff(fast.mean, oracle.mean) <= tolerance);
        CHECK(max_diff(fast.invstd, oracle.invstd) <= tolerance);
        CHECK(max_diff(fast.running_mean, oracle.running_mean) <= tolerance);
        CHECK(max_diff(fast.running_var, oracle.running_var) <= tolerance);
        CHECK(max_diff(fast.out, oracle.out) <= tolerance);
        CHECK(max_diff(fast.grad_x, oracle.grad_x) <= tolerance);
        // Sums over up to 3,000 values of order 1.
        CHECK(max_diff(fast.grad_weight, oracle.grad_weight) <= 100 * tolerance);
        CHECK(max_diff(fast.grad_bias, oracle.grad_bias) <= 100 * tolerance);
      }
    }
  }
}

TEST_CASE("batch_norm kernels match the oracle in float64") { check_against_oracle<double>(1e-12); }

TEST_CASE("batch_norm kernels match the oracle in float32") { check_against_oracle<float>(2e-5); }

TEST_CASE("batch_norm statistics are exact for data far from zero") {
  // A constant offset of 1e4 with unit spread: a naive sum of squares in float32 loses the
  // variance; the row-wise corrected two-pass does not.
  const BatchNormGeometry g{8, 2, 50};
  std::vector<float> x = random_values<float>(g.batch * g.channels * g.length, 7);
  for (float& v : x) v += 1e4f;
  std::vector<float> weight(2, 1.0f), bias(2, 0.0f), running_mean(2, 0.0f), running_var(2, 1.0f);
  std::vector<float> out(x.size()), mean(2), invstd(2);
  cpu::batch_norm_forward_training(g, x.data(), weight.data(), bias.data(), 0.1, 1e-5, false,
                                   running_mean.data(), running_var.data(), out.data(), mean.data(),
                                   invstd.data());
  std::vector<float> oracle_out(x.size()), oracle_mean(2), oracle_invstd(2);
  std::vector<float> oracle_running_mean(2, 0.0f), oracle_running_var(2, 1.0f);
  cpu::batch_norm_forward_training_reference(
      g, x.data(), weight.data(), bias.data(), 0.1, 1e-5, false, oracle_running_mean.data(),
      oracle_running_var.data(), oracle_out.data(), oracle_mean.data(), oracle_invstd.data());
  CHECK(max_diff(invstd, oracle_invstd) <= 1e-4 * oracle_invstd[0]);
}

TEST_CASE("batch_norm kernels give the same bits on 1 and 2 threads") {
  const int threads = omp_get_max_threads();
  // Both shapes are large enough to run on several threads (kernels/cpu/strided_loop.h).
  for (const BatchNormGeometry& g :
       {BatchNormGeometry{256, 130, 1}, BatchNormGeometry{32, 40, 60}}) {
    omp_set_num_threads(1);
    const Results<float> one = run<float>(g, true, true, false);
    omp_set_num_threads(2);
    const Results<float> two = run<float>(g, true, true, false);
    CHECK(one.out == two.out);
    CHECK(one.running_var == two.running_var);
    CHECK(one.grad_x == two.grad_x);
    CHECK(one.grad_weight == two.grad_weight);
  }
  omp_set_num_threads(threads);
}

}  // namespace
}  // namespace strand
