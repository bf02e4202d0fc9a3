// Pearson and Spearman correlations (expected values from numpy 2: corrcoef of the values, and of
// their average ranks, which is scipy.stats.spearmanr) and per-profile Pearson.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "train/regression_metrics.h"

namespace strand::train {
namespace {

TEST_CASE("regression metrics: pearson and spearman match scipy, ties at average ranks") {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6};
  const std::vector<double> y = {2, 1, 4, 3, 7, 5};
  CHECK(pearson(x, y) == doctest::Approx(0.7917946548886295));
  CHECK(spearman(x, y) == doctest::Approx(0.8285714285714287));
  const std::vector<double> tied_x = {1, 1, 2, 3, 3, 3};
  const std::vector<double> tied_y = {5, 6, 6, 7, 9, 8};
  CHECK(spearman(tied_x, tied_y) == doctest::Approx(0.892369614796338));
  // A monotone but not linear relation: Spearman 1, Pearson below.
  const std::vector<double> cubes = {1, 8, 27, 64, 125, 216};
  CHECK(spearman(x, cubes) == doctest::Approx(1.0));
  CHECK(pearson(x, cubes) < 0.99);
}

TEST_CASE("regression metrics: undefined correlations are NaN, bad input throws") {
  const std::vector<double> constant = {2, 2, 2};
  const std::vector<double> varying = {1, 2, 3};
  CHECK(std::isnan(pearson(constant, varying)));
  CHECK(std::isnan(spearman(constant, varying)));
  CHECK(std::isnan(pearson(std::vector<double>{1.0}, std::vector<double>{2.0})));
  CHECK_THROWS_AS((void)pearson(varying, std::vector<double>{1}), std::invalid_argument);
  CHECK_THROWS_AS((void)pearson(std::vector<double>{1, NAN}, std::vector<double>{1, 2}),
                  std::invalid_argument);
}

TEST_CASE("regression metrics: profile correlations skip constant profiles") {
  // Three profiles of 4 positions: perfectly correlated, anti-correlated, constant (skipped).
  const std::vector<float> predicted = {0.1f, 0.2f, 0.3f,  0.4f,  0.4f,  0.3f,
                                        0.2f, 0.1f, 0.25f, 0.25f, 0.25f, 0.25f};
  const std::vector<float> observed = {1, 2, 3, 4, 1, 2, 3, 4, 0, 1, 0, 1};
  double sum = 0.0;
  int64_t count = 0;
  add_profile_correlations(predicted, observed, 4, sum, count);
  CHECK(count == 2);
  CHECK(sum == doctest::Approx(0.0));
  CHECK_THROWS_AS(add_profile_correlations(predicted, observed, 5, sum, count),
                  std::invalid_argument);
}

}  // namespace
}  // namespace strand::train
