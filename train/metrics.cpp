// Metric implementations: sort once, walk groups of tied scores.
#include "train/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace strand::train {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Validates inputs and returns the number of positives.
std::size_t check_inputs(std::span<const double> scores, std::span<const double> labels,
                         const char* who) {
  if (scores.size() != labels.size()) {
    throw std::invalid_argument(
        fmt::format("{}: {} scores but {} labels", who, scores.size(), labels.size()));
  }
  std::size_t positives = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == 1.0) {
      ++positives;
    } else if (labels[i] != 0.0) {
      throw std::invalid_argument(
          fmt::format("{}: label[{}] = {}, expected 0 or 1", who, i, labels[i]));
    }
    if (!std::isfinite(scores[i])) {
      throw std::invalid_argument(
          fmt::format("{}: score[{}] = {}, expected a finite number", who, i, scores[i]));
    }
  }
  return positives;
}

// Indices ordered by score; ties keep input order (irrelevant for the results, which only
// depend on tie groups, but keeps the computation deterministic).
std::vector<std::size_t> order_by_score(std::span<const double> scores, bool descending) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (descending) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  }
  return order;
}

double auroc_checked(std::span<const double> scores, std::span<const double> labels,
                     std::size_t positives) {
  const std::size_t negatives = labels.size() - positives;
  if (positives == 0 || negatives == 0) {
    return kNaN;
  }
  const auto order = order_by_score(scores, /*descending=*/false);
  // 2U accumulated in integers keeps the result exact: each positive in a tie group beats the
  // negatives strictly below and half-beats the negatives in its own group.
  std::uint64_t twice_u = 0;
  std::uint64_t negatives_below = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    std::uint64_t group_pos = 0;
    std::uint64_t group_neg = 0;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) {
      (labels[order[j]] == 1.0 ? group_pos : group_neg) += 1;
      ++j;
    }
    twice_u += group_pos * (2 * negatives_below + group_neg);
    negatives_below += group_neg;
    i = j;
  }
  return static_cast<double>(twice_u) /
         (2.0 * static_cast<double>(positives) * static_cast<double>(negatives));
}

double auprc_checked(std::span<const double> scores, std::span<const double> labels,
                     std::size_t positives) {
  if (positives == 0) {
    return kNaN;
  }
  const auto order = order_by_score(scores, /*descending=*/true);
  double ap = 0.0;
  std::size_t tp = 0;
  std::size_t fp = 0;
  std::size_t prev_tp = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) {
      (labels[order[j]] == 1.0 ? tp : fp) += 1;
      ++j;
    }
    if (tp != prev_tp) {
      // Same operation order as scikit-learn: (R_k - R_{k-1}) * P_k with R = tp / P.
      const double recall_step = static_cast<double>(tp) / static_cast<double>(positives) -
                                 static_cast<double>(prev_tp) / static_cast<double>(positives);
      ap += recall_step * (static_cast<double>(tp) / static_cast<double>(tp + fp));
      prev_tp = tp;
    }
    i = j;
  }
  return ap;
}

double accuracy_checked(std::span<const double> scores, std::span<const double> labels,
                        double threshold) {
  if (scores.empty()) {
    return kNaN;
  }
  std::size_t correct = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const bool predicted = scores[i] > threshold;
    correct += (predicted == (labels[i] == 1.0)) ? 1 : 0;
  }
  return static_cast<double>(correct) / static_cast<double>(scores.size());
}

}  // namespace

double accuracy(std::span<const double> scores, std::span<const double> labels, double threshold) {
  check_inputs(scores, labels, "accuracy");
  return accuracy_checked(scores, labels, threshold);
}

double auroc(std::span<const double> scores, std::span<const double> labels) {
  const std::size_t positives = check_inputs(scores, labels, "auroc");
  return auroc_checked(scores, labels, positives);
}

double auprc(std::span<const double> scores, std::span<const double> labels) {
  const std::size_t positives = check_inputs(scores, labels, "auprc");
  return auprc_checked(scores, labels, positives);
}

BinaryMetrics binary_metrics(std::span<const double> scores, std::span<const double> labels,
                             double threshold) {
  BinaryMetrics m;
  m.positives = check_inputs(scores, labels, "binary_metrics");
  m.count = scores.size();
  m.accuracy = accuracy_checked(scores, labels, threshold);
  m.auroc = auroc_checked(scores, labels, m.positives);
  m.auprc = auprc_checked(scores, labels, m.positives);
  return m;
}

MetricAccumulator::MetricAccumulator(std::size_t num_tasks)
    : scores_(num_tasks), labels_(num_tasks) {
  if (num_tasks == 0) {
    throw std::invalid_argument("MetricAccumulator: num_tasks must be at least 1");
  }
}

template <typename T>
void MetricAccumulator::add_impl(std::span<const T> scores, std::span<const T> labels,
                                 std::span<const T> mask) {
  const std::size_t tasks = num_tasks();
  if (scores.size() != labels.size()) {
    throw std::invalid_argument(fmt::format("MetricAccumulator::add: {} scores but {} labels",
                                            scores.size(), labels.size()));
  }
  if (scores.size() % tasks != 0) {
    throw std::invalid_argument(fmt::format(
        "MetricAccumulator::add: {} values is not a multiple of {} tasks", scores.size(), tasks));
  }
  if (!mask.empty() && mask.size() != scores.size()) {
    throw std::invalid_argument(fmt::format(
        "MetricAccumulator::add: mask has {} values, expected {}", mask.size(), scores.size()));
  }
  // Validate the whole batch first so a bad batch leaves the accumulator unchanged.
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const bool keep = (mask.empty() || mask[i] != T{0}) && !std::isnan(labels[i]);
    if (!keep) {
      continue;
    }
    if (labels[i] != T{0} && labels[i] != T{1}) {
      throw std::invalid_argument(fmt::format(
          "MetricAccumulator::add: label[{}] = {}, expected 0, 1 or NaN", i, labels[i]));
    }
    if (!std::isfinite(scores[i])) {
      throw std::invalid_argument(fmt::format(
          "MetricAccumulator::add: score[{}] = {}, expected a finite number", i, scores[i]));
    }
  }
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const bool keep = (mask.empty() || mask[i] != T{0}) && !std::isnan(labels[i]);
    if (keep) {
      scores_[i % tasks].push_back(static_cast<double>(scores[i]));
      labels_[i % tasks].push_back(static_cast<double>(labels[i]));
    }
  }
}

void MetricAccumulator::add(std::span<const float> scores, std::span<const float> labels,
                            std::span<const float> mask) {
  add_impl(scores, labels, mask);
}

void MetricAccumulator::add(std::span<const double> scores, std::span<const double> labels,
                            std::span<const double> mask) {
  add_impl(scores, labels, mask);
}

void MetricAccumulator::reset() {
  for (auto& s : scores_) {
    s.clear();
  }
  for (auto& l : labels_) {
    l.clear();
  }
}

std::size_t MetricAccumulator::count(std::size_t task) const {
  if (task >= num_tasks()) {
    throw std::out_of_range(
        fmt::format("MetricAccumulator: task {} out of range (have {})", task, num_tasks()));
  }
  return scores_[task].size();
}

BinaryMetrics MetricAccumulator::compute(std::size_t task, double threshold) const {
  (void)count(task);  // range check
  return binary_metrics(scores_[task], labels_[task], threshold);
}

std::vector<BinaryMetrics> MetricAccumulator::compute_all(double threshold) const {
  std::vector<BinaryMetrics> all;
  all.reserve(num_tasks());
  for (std::size_t t = 0; t < num_tasks(); ++t) {
    all.push_back(compute(t, threshold));
  }
  return all;
}

}  // namespace strand::train
