// Pearson, Spearman (average ranks for ties) and per-profile Pearson.
#include "train/regression_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace strand::train {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_pairs(std::span<const double> x, std::span<const double> y, const char* who) {
  if (x.size() != y.size()) {
    throw std::invalid_argument(fmt::format("{}: {} values against {}", who, x.size(), y.size()));
  }
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      throw std::invalid_argument(
          fmt::format("{}: pair {} is ({}, {}), expected finite numbers", who, i, x[i], y[i]));
    }
  }
}

// Pearson of validated pairs, in two passes (mean first) for accuracy.
template <typename T>
double pearson_unchecked(std::span<const T> x, std::span<const T> y) {
  const size_t n = x.size();
  if (n < 2) return kNaN;
  double mean_x = 0.0, mean_y = 0.0;
  for (size_t i = 0; i < n; ++i) mean_x += x[i], mean_y += y[i];
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = x[i] - mean_x, dy = y[i] - mean_y;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx <= 0.0 || syy <= 0.0) return kNaN;
  return sxy / std::sqrt(sxx * syy);
}

// 1-based ranks with ties at their average rank.
std::vector<double> average_ranks(std::span<const double> values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && values[order[j]] == values[order[i]]) ++j;
    const double rank = 0.5 * static_cast<double>(i + 1 + j);  // mean of ranks i+1 .. j
    for (size_t k = i; k < j; ++k) ranks[order[k]] = rank;
    i = j;
  }
  return ranks;
}

}  // namespace

double pearson(std::span<const double> x, std::span<const double> y) {
  check_pairs(x, y, "pearson");
  return pearson_unchecked(x, y);
}

double spearman(std::span<const double> x, std::span<const double> y) {
  check_pairs(x, y, "spearman");
  const std::vector<double> rx = average_ranks(x), ry = average_ranks(y);
  return pearson_unchecked(std::span<const double>(rx), std::span<const double>(ry));
}

void add_profile_correlations(std::span<const float> predicted, std::span<const float> observed,
                              int64_t length, double& sum, int64_t& count) {
  if (predicted.size() != observed.size() || length <= 0 ||
      predicted.size() % static_cast<size_t>(length) != 0) {
    throw std::invalid_argument(
        fmt::format("profile correlation: {} predicted and {} observed values in profiles of {}",
                    predicted.size(), observed.size(), length));
  }
  const size_t l = static_cast<size_t>(length);
  for (size_t start = 0; start < predicted.size(); start += l) {
    const double r = pearson_unchecked(predicted.subspan(start, l), observed.subspan(start, l));
    if (std::isnan(r)) continue;
    sum += r;
    ++count;
  }
}

}  // namespace strand::train
