// The DeepLIFT rule table: one row per op with an attribution rule (autograd/attribution.h), and
// one driver that checks every row the same way, as tests/ops/op_table_test.cpp does for
// gradients. For each row the driver draws an input x and a reference r (float64, seeded from
// the row's name; every fifth element of r equal to x's, where the rescale rule falls back to
// the derivative), runs the references' pass and the inputs' pass, and back-propagates a random
// output weighting g. Then:
//   1. summation to delta: sum(m * (x - r)) = sum(g * (f(x) - f(r))) (to 1e-10 relative);
//   2. elementwise rows: m = g * (f(x) - f(r)) / (x - r) where x and r differ, g * f'(x) where
//      they are equal (the rescale rule itself, against its definition);
//   3. without a pass the op's gradient is untouched (the inputs' pass is not leaked).
// Each row is its own doctest case ("explain: DeepLIFT rule ...").
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "autograd/attribution.h"
#include "autograd/grad_mode.h"
#include "core/splitmix64.h"
#include "ops/conv1d.h"
#include "ops/elementwise.h"
#include "ops/normalization.h"
#include "ops/pooling.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "test_helpers.h"

namespace strand {
namespace {

using testing::random_tensor;
using Fn = std::function<Var(const Var&)>;

uint64_t seed_of(std::string_view name) {
  uint64_t seed = 17;
  for (const char c : name) seed = splitmix64_hash(seed ^ static_cast<unsigned char>(c));
  return seed;
}

struct Row {
  Fn fn{};
  Shape shape{};
  bool elementwise = false;
  bool positive = false;                       // inputs in [0.5, 1.5) (log, sqrt)
  std::function<double(double)> derivative{};  // elementwise rows: f'
};

Tensor draw(const Shape& shape, uint64_t seed, bool positive) {
  Tensor t = random_tensor(shape, seed);
  return positive ? ops::affine(t, 0.5, 1.0) : ops::affine(t, 2.0, 0.0);
}

// Multipliers m of `row` for input x and reference r, with output weights g.
struct Multipliers {
  Tensor m, fx, fr;
};
// The inputs' pass on x, then the references' pass on r with the rules recorded: the
// references' gradients are the multipliers (autograd/attribution.h).
Multipliers attribute(const Row& row, const Tensor& x, const Tensor& r, const Tensor& g) {
  AttributionPass pass;
  const Var fx = row.fn(Var(x));
  std::vector<int64_t> rows(static_cast<size_t>(x.size(0)));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
  pass.begin_references(rows);
  Var reference(r, /*requires_grad=*/true);
  const Var fr = row.fn(reference);
  fr.backward(g);
  pass.finish();
  return {reference.grad(), fx.value(), fr.value()};
}

void check_row(std::string_view name, const Row& row, DType dtype) {
  const uint64_t seed = seed_of(name);
  const double tolerance = dtype == DType::kFloat64 ? 1e-10 : 1e-4;
  Tensor x = draw(row.shape, seed, row.positive);
  Tensor r = draw(row.shape, seed + 1, row.positive);
  {
    double* rv = r.data<double>();
    const double* xv = x.data<double>();
    for (int64_t i = 0; i < r.numel(); i += 5) rv[i] = xv[i];
  }
  x = x.to(dtype);
  r = r.to(dtype);
  Shape out_shape;
  {
    NoGradGuard no_grad;
    out_shape = row.fn(Var(x)).shape();
  }
  const Tensor g = random_tensor(out_shape, seed + 2, dtype);
  const Multipliers result = attribute(row, x, r, g);
  REQUIRE(result.m.defined());

  // 1. Summation to delta.
  const auto m = result.m.to(DType::kFloat64).to_vector<double>();
  const auto xv = x.to(DType::kFloat64).to_vector<double>();
  const auto rv = r.to(DType::kFloat64).to_vector<double>();
  const auto gv = g.to(DType::kFloat64).to_vector<double>();
  const auto fx = result.fx.to(DType::kFloat64).to_vector<double>();
  const auto fr = result.fr.to(DType::kFloat64).to_vector<double>();
  double attributed = 0.0, delta = 0.0, scale = 0.0;
  for (size_t i = 0; i < m.size(); ++i) attributed += m[i] * (xv[i] - rv[i]);
  for (size_t i = 0; i < fx.size(); ++i) {
    delta += gv[i] * (fx[i] - fr[i]);
    scale += std::abs(gv[i] * (fx[i] - fr[i]));
  }
  INFO(name << ": sum(m * dx) = " << attributed << ", sum(g * dy) = " << delta);
  CHECK(std::abs(attributed - delta) <= tolerance * std::max(1.0, scale));

  // 2. The rescale rule against its definition.
  if (row.elementwise) {
    for (size_t i = 0; i < m.size(); ++i) {
      const double dx = xv[i] - rv[i];
      const double expected =
          std::abs(dx) < 1e-6 ? gv[i] * row.derivative(xv[i]) : gv[i] * (fx[i] - fr[i]) / dx;
      INFO(name << " element " << i << ": x " << xv[i] << " r " << rv[i]);
      CHECK(std::abs(m[i] - expected) <= 100 * tolerance * std::max(1.0, std::abs(expected)));
    }
  }

  // 3. No pass: the ordinary gradient, where it differs from the multipliers.
  Var plain(x, /*requires_grad=*/true);
  row.fn(plain).backward(g);
  if (row.elementwise) {
    const auto grad = plain.grad().to(DType::kFloat64).to_vector<double>();
    for (size_t i = 0; i < grad.size(); ++i) {
      CHECK(std::abs(grad[i] - gv[i] * row.derivative(xv[i])) <=
            100 * tolerance * std::max(1.0, std::abs(grad[i])));
    }
  }
}

double sigmoid_of(double v) { return 1.0 / (1.0 + std::exp(-v)); }
double normal_pdf(double v) { return std::exp(-0.5 * v * v) / std::sqrt(2.0 * M_PI); }
double normal_cdf(double v) { return 0.5 * std::erfc(-v / std::sqrt(2.0)); }

// A conv's weights and bias, fixed per row.
Var weights(const Shape& shape, uint64_t seed, const Var& like) {
  return Var(random_tensor(shape, seed, like.dtype()));
}

#define STRAND_RULE_ROW(name, ...)                      \
  TEST_CASE("DeepLIFT rule: " name) {                   \
    check_row(name, Row{__VA_ARGS__}, DType::kFloat64); \
    check_row(name, Row{__VA_ARGS__}, DType::kFloat32); \
  }

// ---- Elementwise: the rescale rule ------------------------------------------------------------
STRAND_RULE_ROW(
    "relu", [](const Var& x) { return relu(x); }, {3, 4, 9}, true, false,
    [](double v) { return v > 0 ? 1.0 : 0.0; })
STRAND_RULE_ROW(
    "sigmoid", [](const Var& x) { return sigmoid(x); }, {3, 4, 9}, true, false,
    [](double v) { return sigmoid_of(v) * (1 - sigmoid_of(v)); })
STRAND_RULE_ROW(
    "tanh", [](const Var& x) { return tanh(x); }, {3, 4, 9}, true, false,
    [](double v) { return 1 - std::tanh(v) * std::tanh(v); })
STRAND_RULE_ROW(
    "softplus", [](const Var& x) { return softplus(x); }, {3, 4, 9}, true, false,
    [](double v) { return sigmoid_of(v); })
STRAND_RULE_ROW(
    "exp", [](const Var& x) { return exp(x); }, {3, 4, 9}, true, false,
    [](double v) { return std::exp(v); })
STRAND_RULE_ROW(
    "gelu", [](const Var& x) { return gelu(x); }, {3, 4, 9}, true, false,
    [](double v) { return normal_cdf(v) + v * normal_pdf(v); })
STRAND_RULE_ROW(
    "log", [](const Var& x) { return log(x); }, {3, 4, 9}, true, true,
    [](double v) { return 1.0 / v; })
STRAND_RULE_ROW(
    "sqrt", [](const Var& x) { return sqrt(x); }, {3, 4, 9}, true, true,
    [](double v) { return 0.5 / std::sqrt(v); })
STRAND_RULE_ROW(
    "square", [](const Var& x) { return square(x); }, {3, 4, 9}, true, false,
    [](double v) { return 2.0 * v; })

// ---- Max pooling: the change routed through the chosen elements --------------------------------
STRAND_RULE_ROW("max_pool1d (k=3, s=3)",
                [](const Var& x) { return max_pool1d(x, {.kernel = 3, .stride = 3}); }, {2, 3, 12})
STRAND_RULE_ROW("max_pool1d (k=4, s=2, overlapping)",
                [](const Var& x) { return max_pool1d(x, {.kernel = 4, .stride = 2}); }, {2, 3, 12})
STRAND_RULE_ROW("max_pool1d (k=2, s=2, ceil_mode)",
                [](const Var& x) {
                  return max_pool1d(x, {.kernel = 2, .stride = 2, .ceil_mode = true});
                },
                {2, 3, 11})
STRAND_RULE_ROW("global_max_pool1d", [](const Var& x) { return global_max_pool1d(x); }, {2, 3, 12})
STRAND_RULE_ROW("max (dim 1)", [](const Var& x) { return max(x, 1).first; }, {4, 7})

// ---- Linear ops keep their gradient -----------------------------------------------------------
STRAND_RULE_ROW("conv1d",
                [](const Var& x) {
                  return conv1d(x, weights({5, 3, 4}, 1, x), weights({5}, 2, x), {});
                },
                {2, 3, 12})
STRAND_RULE_ROW("batch_norm (evaluation)",
                [](const Var& x) {
                  BatchNormStatistics statistics{
                      ops::affine(random_tensor({3}, 3, x.dtype()), 0.5, 0.0),
                      ops::affine(random_tensor({3}, 4, x.dtype()), 0.2, 1.0),
                      Tensor::zeros({}, DType::kFloat64)};
                  return batch_norm(x, weights({3}, 5, x), weights({3}, 6, x), statistics, false,
                                    0.1, 1e-5);
                },
                {2, 3, 12})
STRAND_RULE_ROW("global_avg_pool1d", [](const Var& x) { return global_avg_pool1d(x); }, {2, 3, 12})
STRAND_RULE_ROW("crop1d", [](const Var& x) { return crop1d(x, 7); }, {2, 3, 12})

// ---- Fused ops run unfused, with each part's rule ---------------------------------------------
STRAND_RULE_ROW("conv1d_relu (fused)",
                [](const Var& x) {
                  return conv1d_relu(x, weights({5, 3, 4}, 7, x), weights({5}, 8, x), {});
                },
                {2, 3, 12})
STRAND_RULE_ROW("conv1d_relu_max (fused)",
                [](const Var& x) {
                  return conv1d_relu_max(x, weights({5, 3, 4}, 9, x), weights({5}, 10, x), {});
                },
                {2, 3, 12})
STRAND_RULE_ROW("batch_norm_relu (fused, evaluation)",
                [](const Var& x) {
                  BatchNormStatistics statistics{
                      ops::affine(random_tensor({3}, 11, x.dtype()), 0.5, 0.0),
                      ops::affine(random_tensor({3}, 12, x.dtype()), 0.2, 1.0),
                      Tensor::zeros({}, DType::kFloat64)};
                  return batch_norm_relu(x, weights({3}, 13, x), weights({3}, 14, x), statistics,
                                         false, 0.1, 1e-5);
                },
                {2, 3, 12})

// ---- Chains: the rules compose ----------------------------------------------------------------
STRAND_RULE_ROW("conv1d -> relu -> max_pool1d -> conv1d -> sigmoid",
                [](const Var& x) {
                  const Var h = max_pool1d(
                      relu(conv1d(x, weights({6, 3, 3}, 15, x), weights({6}, 16, x), {})),
                      {.kernel = 2, .stride = 2});
                  return sigmoid(conv1d(h, weights({2, 6, 2}, 17, x), Var(), {}));
                },
                {2, 3, 14})
STRAND_RULE_ROW("residual: x + relu(conv1d(x, same))",
                [](const Var& x) {
                  const Var h = relu(conv1d(x, weights({3, 3, 3}, 18, x), weights({3}, 19, x),
                                            {.dilation = 2, .pad_left = 2, .pad_right = 2}));
                  return tanh(add(x, h));
                },
                {2, 3, 12})

TEST_CASE("DeepLIFT: a product of two input-dependent values is refused") {
  const Tensor x = random_tensor({2, 3}, 20);
  AttributionPass pass;
  {
    const Var input(x);
    (void)mul(input, input);
  }
  pass.begin_references({0, 1});
  Var reference(x, true);
  CHECK_THROWS_WITH_AS(mul(reference, reference), doctest::Contains("no rule for 'mul'"), Error);
}

TEST_CASE("DeepLIFT: passes that run different ops are refused, naming both") {
  const Tensor x = random_tensor({2, 3}, 21);
  AttributionPass pass;
  (void)relu(Var(x));
  pass.begin_references({0, 1});
  Var reference(x, true);
  CHECK_THROWS_WITH_AS(sigmoid(reference), doctest::Contains("'sigmoid'"), Error);
}

TEST_CASE("DeepLIFT: ops under NoGradGuard take no part in the pass") {
  const Tensor x = random_tensor({2, 3}, 22);
  AttributionPass pass;
  {
    NoGradGuard no_grad;
    (void)relu(Var(x));
  }
  pass.begin_references({0, 1});
  CHECK_NOTHROW(pass.finish());
}

TEST_CASE("DeepLIFT: an input pairs with several references, each row its own multipliers") {
  // Inputs x (2 rows), references r (5 rows): rows 0-1 pair with x[0], rows 2-4 with x[1]. The
  // pass gives the multipliers a pass over x repeated row by row would.
  const Tensor x = random_tensor({2, 3, 8}, 23);
  const Tensor r = random_tensor({5, 3, 8}, 24);
  const Tensor w = random_tensor({4, 3, 3}, 25);
  const auto f = [&](const Var& v) {
    return global_max_pool1d(relu(conv1d(v, Var(w), Var(), {})));
  };
  const Tensor g = random_tensor({5, 4}, 26);
  Tensor paired;
  {
    AttributionPass pass;
    (void)f(Var(x));
    pass.begin_references({0, 0, 1, 1, 1});
    Var reference(r, true);
    f(reference).backward(g);
    pass.finish();
    paired = reference.grad();
  }
  Tensor repeated_x = Tensor::empty({5, 3, 8}, DType::kFloat64);
  for (int64_t i = 0; i < 5; ++i)
    repeated_x.slice(0, i, i + 1).copy_(x.slice(0, i < 2 ? 0 : 1, i < 2 ? 1 : 2));
  AttributionPass pass;
  (void)f(Var(repeated_x));
  pass.begin_references({0, 1, 2, 3, 4});
  Var reference(r, true);
  f(reference).backward(g);
  pass.finish();
  CHECK(testing::max_abs_difference(paired, reference.grad()) < 1e-12);
}

}  // namespace
}  // namespace strand
