// Seqlet calling: windowed sums, null thresholds, greedy extraction.
#include "motifs/seqlet_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "motifs/null_thresholds.h"

namespace strand::motifs {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr int64_t kSubsampleCap = 1000000;  // windows the thresholds are fitted to
constexpr int64_t kNullSamples = 10000;

// (N, L - window + 1): the sums of the bases' contributions over each window.
std::vector<double> windowed_sums(const ScoreSet& scores, int64_t window, int threads) {
  const int64_t n = scores.sequences, l = scores.length, d = l - window + 1;
  std::vector<double> out(static_cast<size_t>(n * d));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t s = 0; s < n; ++s) {
    std::vector<double> cumsum(static_cast<size_t>(l + 1), 0.0);
    for (int64_t p = 0; p < l; ++p) {
      const float* c = scores.contrib.data() + scores.at(s, p);
      cumsum[p + 1] = cumsum[p] + (double(c[0]) + c[1] + c[2] + c[3]);
    }
    for (int64_t p = 0; p < d; ++p) out[s * d + p] = cumsum[p + window] - cumsum[p];
  }
  return out;
}

// At most kSubsampleCap of the windows, drawn without replacement.
std::vector<double> subsample(const std::vector<double>& values) {
  if (static_cast<int64_t>(values.size()) <= kSubsampleCap) return values;
  std::vector<double> copy = values;
  std::mt19937_64 rng(1234);
  for (int64_t i = 0; i < kSubsampleCap; ++i) {
    std::uniform_int_distribution<size_t> pick(static_cast<size_t>(i), copy.size() - 1);
    std::swap(copy[static_cast<size_t>(i)], copy[pick(rng)]);
  }
  copy.resize(kSubsampleCap);
  return copy;
}

// The fraction of |values| below `threshold` (numpy.searchsorted on the sorted |values|).
double rank_fraction(const std::vector<double>& values, double threshold) {
  int64_t below = 0;
  for (double v : values) below += std::abs(v) < threshold;
  return static_cast<double>(below) / static_cast<double>(values.size());
}

struct Thresholds {
  double positive, negative, sign;
};

Thresholds fit_thresholds(const std::vector<double>& sums, const SeqletOptions& o) {
  const NullDraws null = laplace_null(sums, kNullSamples, 1234);
  std::vector<double> values = subsample(sums);
  std::vector<double> pos, neg;
  for (double v : values) (v >= 0 ? pos : neg).push_back(v);
  std::sort(pos.begin(), pos.end());
  std::sort(neg.begin(), neg.end(), std::greater<>());
  Thresholds t{isotonic_threshold(pos, null.positive, true, o.target_fdr),
               isotonic_threshold(neg, null.negative, false, o.target_fdr), 0};
  int64_t passing = 0;
  for (double v : values) passing += v >= t.positive || v <= t.negative;
  const double frac = static_cast<double>(passing) / static_cast<double>(values.size());
  if (frac < o.min_passing_windows_frac || frac > o.max_passing_windows_frac) {
    std::vector<double> magnitudes(values.size());
    for (size_t i = 0; i < values.size(); ++i) magnitudes[i] = std::abs(values[i]);
    std::sort(magnitudes.begin(), magnitudes.end());
    const double keep =
        frac < o.min_passing_windows_frac ? o.min_passing_windows_frac : o.max_passing_windows_frac;
    t.positive = percentile_of_sorted(magnitudes, 100.0 * (1.0 - keep));
    t.negative = -t.positive;
  }
  // The weakest threshold as a quantile of all |sums|, and the |sum| at that quantile.
  const double weak = std::min(std::min(rank_fraction(sums, std::abs(t.positive)),
                                        rank_fraction(sums, std::abs(t.negative))) -
                                   0.0001,
                               o.weak_threshold_for_counting_sign);
  std::vector<double> magnitudes(sums.size());
  for (size_t i = 0; i < sums.size(); ++i) magnitudes[i] = std::abs(sums[i]);
  const auto at = static_cast<size_t>(std::max(0.0, weak) * static_cast<double>(sums.size()));
  std::nth_element(magnitudes.begin(), magnitudes.begin() + static_cast<int64_t>(at),
                   magnitudes.end());
  t.sign = magnitudes[at];
  return t;
}

// One sequence's windows, strongest first, each suppressing its neighbourhood: the window
// starts of its seqlets (modisco's _iterative_extract_seqlets, ties to the first position).
std::vector<int64_t> greedy_windows(const double* row, int64_t d, const Thresholds& t,
                                    const SeqletOptions& o) {
  std::vector<std::pair<double, int64_t>> passing;
  for (int64_t p = o.flank; p < d - o.flank; ++p) {
    if (row[p] >= t.positive || row[p] <= t.negative) passing.emplace_back(std::abs(row[p]), p);
  }
  std::stable_sort(passing.begin(), passing.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  const int64_t suppress = o.window / 2 + o.flank;
  std::vector<char> suppressed(static_cast<size_t>(d), 0);
  std::vector<int64_t> starts;
  for (const auto& [value, p] : passing) {
    if (suppressed[p]) continue;
    starts.push_back(p);
    const auto lo = static_cast<int64_t>(std::max(std::floor(double(p) + 0.5 - suppress), 0.0));
    const auto hi = std::min(static_cast<int64_t>(std::ceil(double(p) + 0.5 + suppress)), d);
    for (int64_t q = lo; q < hi; ++q) suppressed[q] = 1;
  }
  return starts;
}

}  // namespace

SeqletCalls call_seqlets(const ScoreSet& scores, const SeqletOptions& o) {
  const int64_t need = o.window + 2 * o.flank;
  if (scores.length < need) {
    throw std::runtime_error(
        fmt::format("sequences of {} bases are shorter than a seqlet ({} "
                    "window + 2 x {} flank)",
                    scores.length, o.window, o.flank));
  }
  const int64_t n = scores.sequences, d = scores.length - o.window + 1;
  const std::vector<double> sums = windowed_sums(scores, o.window, o.threads);
  const Thresholds t = fit_thresholds(sums, o);
  std::vector<std::vector<int64_t>> starts(static_cast<size_t>(n));
#pragma omp parallel for num_threads(o.threads) schedule(dynamic, 64)
  for (int64_t s = 0; s < n; ++s) starts[s] = greedy_windows(sums.data() + s * d, d, t, o);
  SeqletCalls calls{{}, {}, t.positive, t.negative, t.sign};
  for (int64_t s = 0; s < n; ++s) {
    for (int64_t start : starts[s]) {
      const Seqlet seqlet{s, start - o.flank, start + o.window + o.flank, false};
      const double central = sums[s * d + start];
      if (central > t.sign && static_cast<int64_t>(calls.positive.size()) < o.max_seqlets) {
        calls.positive.push_back(seqlet);
      } else if (central < -t.sign && static_cast<int64_t>(calls.negative.size()) < o.max_seqlets) {
        calls.negative.push_back(seqlet);
      }
    }
  }
  return calls;
}

}  // namespace strand::motifs
