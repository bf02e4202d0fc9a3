// Laplace null and isotonic thresholds, as modisco-lite computes them (extract_seqlets.py).
#include "motifs/null_thresholds.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace strand::motifs {

double percentile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::runtime_error("percentile of no values");
  const double rank = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lower = static_cast<size_t>(std::floor(rank));
  const size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * frac;
}

namespace {

// numpy.histogram(values, bins=1000)'s fullest bin: its edges.
std::pair<double, double> fullest_bin(const std::vector<double>& values) {
  auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  double lo = *lo_it, hi = *hi_it;
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  constexpr int kBins = 1000;
  std::vector<int64_t> counts(kBins, 0);
  const double width = (hi - lo) / kBins;
  for (double v : values) {
    int bin = static_cast<int>((v - lo) / width);
    counts[static_cast<size_t>(std::clamp(bin, 0, kBins - 1))]++;
  }
  const int peak =
      static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
  return {lo + width * peak, lo + width * (peak + 1)};
}

// The side's rate: the largest -log(1 - p) / |percentile - mu| over p = 5%..95%, the percentile
// p of the positive side and 100 - p of the negative one (the distance from mu that holds p of
// the side's values).
double laplace_rate(std::vector<double> side, double mu, bool positive) {
  if (side.empty()) return std::numeric_limits<double>::infinity();
  std::sort(side.begin(), side.end());
  double rate = 0.0;
  for (int k = 1; k <= 19; ++k) {
    const double p = 5.0 * k;
    const double distance = std::abs(percentile_of_sorted(side, positive ? p : 100.0 - p) - mu);
    rate = std::max(rate, -std::log(1.0 - p / 100.0) / distance);
  }
  return rate;
}

}  // namespace

double histogram_mode(const std::vector<double>& values) {
  const auto [l1, r1] = fullest_bin(values);
  std::vector<double> top;
  for (double v : values) {
    if (v > l1 && v < r1) top.push_back(v);
  }
  if (top.empty()) return (l1 + r1) / 2;
  const auto [l2, r2] = fullest_bin(top);
  return (l2 + r2) / 2;
}

NullDraws laplace_null(const std::vector<double>& values, int64_t samples, uint64_t seed) {
  const double mu = histogram_mode(values);
  std::vector<double> pos, neg;
  for (double v : values) {
    if (v >= mu) pos.push_back(v);
    if (v <= mu) neg.push_back(v);
  }
  const double pos_rate = laplace_rate(pos, mu, true);
  const double neg_rate = laplace_rate(neg, mu, false);
  const double prob_pos =
      static_cast<double>(pos.size()) / static_cast<double>(pos.size() + neg.size());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  NullDraws draws;
  for (int64_t i = 0; i < samples; ++i) {
    const bool positive = uniform(rng) < prob_pos;
    const double cdf = uniform(rng);
    const double v =
        positive ? -std::log(1 - cdf) / pos_rate + mu : mu + std::log(1 - cdf) / neg_rate;
    (v >= 0 ? draws.positive : draws.negative).push_back(v);
  }
  return draws;
}

IsotonicFit::IsotonicFit(const std::vector<double>& x, const std::vector<double>& y,
                         const std::vector<double>& weight) {
  std::vector<size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&x](size_t a, size_t b) { return x[a] < x[b]; });
  // Blocks of the pool-adjacent-violators pass: mean y, weight, and their x range's last x.
  std::vector<double> block_y, block_w;
  std::vector<size_t> block_first;  // index into xs_ of each block's first unique x
  for (size_t k = 0; k < order.size();) {
    double sw = 0, swy = 0;
    const double xv = x[order[k]];
    for (; k < order.size() && x[order[k]] == xv; ++k) {
      sw += weight[order[k]];
      swy += weight[order[k]] * y[order[k]];
    }
    xs_.push_back(xv);
    block_y.push_back(swy / sw);
    block_w.push_back(sw);
    block_first.push_back(xs_.size() - 1);
    while (block_y.size() > 1 && block_y[block_y.size() - 2] > block_y.back()) {
      const size_t b = block_y.size() - 1;
      const double w = block_w[b - 1] + block_w[b];
      block_y[b - 1] = (block_w[b - 1] * block_y[b - 1] + block_w[b] * block_y[b]) / w;
      block_w[b - 1] = w;
      block_y.pop_back();
      block_w.pop_back();
      block_first.pop_back();
    }
  }
  ys_.resize(xs_.size());
  for (size_t b = 0; b < block_y.size(); ++b) {
    const size_t end = b + 1 < block_first.size() ? block_first[b + 1] : xs_.size();
    for (size_t i = block_first[b]; i < end; ++i) ys_[i] = block_y[b];
  }
}

double IsotonicFit::operator()(double x) const {
  if (x <= xs_.front()) return ys_.front();
  if (x >= xs_.back()) return ys_.back();
  const size_t hi = static_cast<size_t>(std::upper_bound(xs_.begin(), xs_.end(), x) - xs_.begin());
  const size_t lo = hi - 1;
  const double t = (x - xs_[lo]) / (xs_[hi] - xs_[lo]);
  return ys_[lo] + (ys_[hi] - ys_[lo]) * t;
}

double isotonic_threshold(const std::vector<double>& values, const std::vector<double>& null,
                          bool increasing, double target_fdr) {
  if (values.empty())
    return increasing ? std::numeric_limits<double>::infinity()
                      : -std::numeric_limits<double>::infinity();
  if (null.empty()) return values.front();
  // A decreasing fit in x is an increasing one in -x.
  const double sign = increasing ? 1.0 : -1.0;
  std::vector<double> x, y, w;
  const double null_weight = static_cast<double>(values.size()) / static_cast<double>(null.size());
  for (double v : values) x.push_back(sign * v), y.push_back(1.0), w.push_back(1.0);
  for (double v : null) x.push_back(sign * v), y.push_back(0.0), w.push_back(null_weight);
  const IsotonicFit fit(x, y, w);
  const double min_precision = fit(fit.x_min());
  double frac_neg = -1.0 / (1.0 - 1.0 / std::max(min_precision, 1e-7));
  if (frac_neg > 1.0 || frac_neg < 0.95) frac_neg = std::clamp(frac_neg, 0.95, 1.0);
  for (size_t i = 0; i < values.size(); ++i) {
    double precision = 1.0 + frac_neg * (1.0 - 1.0 / std::max(fit(sign * values[i]), 1e-7));
    precision = std::clamp(precision, 0.0, 1.0);
    if (i + 1 == values.size()) precision = 1.0;
    if (precision >= 1.0 - target_fdr) return values[i];
  }
  return values.back();
}

}  // namespace strand::motifs
