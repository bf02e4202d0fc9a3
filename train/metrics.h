// Binary classification metrics (accuracy, auROC, auPRC), exact and tie-aware.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace strand::train {

/// Scores above this are predicted positive by accuracy().
inline constexpr double kDefaultThreshold = 0.5;

/// Fraction of examples whose prediction (score > threshold) equals the label.
/// Labels must be exactly 0 or 1. Returns NaN for empty input.
[[nodiscard]] double accuracy(std::span<const double> scores, std::span<const double> labels,
                              double threshold = kDefaultThreshold);

/// Area under the ROC curve, computed exactly as the Mann-Whitney U statistic: the probability
/// that a random positive outscores a random negative, with tied (positive, negative) pairs
/// counting 1/2. Equals scikit-learn's roc_auc_score. Returns NaN when the labels hold only one
/// class (the curve is undefined), including empty input.
[[nodiscard]] double auroc(std::span<const double> scores, std::span<const double> labels);

/// Area under the precision-recall curve as average precision, AP = sum_k (R_k - R_{k-1}) P_k
/// over distinct score thresholds (tied scores form one step), matching scikit-learn's
/// average_precision_score. Returns NaN when there are no positives (recall is undefined).
[[nodiscard]] double auprc(std::span<const double> scores, std::span<const double> labels);

/// All metrics of one task.
struct BinaryMetrics {
  std::size_t count = 0;      ///< examples used (unmasked, non-NaN labels)
  std::size_t positives = 0;  ///< examples with label 1
  double accuracy = 0.0;      ///< see accuracy()
  double auroc = 0.0;         ///< see auroc()
  double auprc = 0.0;         ///< see auprc()
};

/// Computes every metric of BinaryMetrics at once.
[[nodiscard]] BinaryMetrics binary_metrics(std::span<const double> scores,
                                           std::span<const double> labels,
                                           double threshold = kDefaultThreshold);

/// Collects (score, label) pairs over batches for one or more tasks, then computes metrics.
///
/// Batches are row-major (batch, num_tasks). A label is skipped when it is NaN (missing) or when
/// the optional mask holds 0 at its position, so multi-task data with missing labels can be
/// evaluated per task. Scores must be finite.
class MetricAccumulator {
 public:
  /// An accumulator for `num_tasks` tasks (>= 1).
  explicit MetricAccumulator(std::size_t num_tasks = 1);

  /// Adds a batch. `scores` and `labels` have equal size, a multiple of num_tasks(); `mask` is
  /// empty (keep all) or the same size (0 = skip).
  void add(std::span<const float> scores, std::span<const float> labels,
           std::span<const float> mask = {});
  /// Double-precision overload of add().
  void add(std::span<const double> scores, std::span<const double> labels,
           std::span<const double> mask = {});

  /// Forgets everything collected (e.g. at the start of an epoch).
  void reset();

  /// Number of tasks.
  [[nodiscard]] std::size_t num_tasks() const { return scores_.size(); }
  /// Number of kept examples for `task`.
  [[nodiscard]] std::size_t count(std::size_t task = 0) const;
  /// Metrics of one task over everything added since the last reset().
  [[nodiscard]] BinaryMetrics compute(std::size_t task = 0,
                                      double threshold = kDefaultThreshold) const;
  /// Metrics of every task.
  [[nodiscard]] std::vector<BinaryMetrics> compute_all(double threshold = kDefaultThreshold) const;

 private:
  template <typename T>
  void add_impl(std::span<const T> scores, std::span<const T> labels, std::span<const T> mask);

  std::vector<std::vector<double>> scores_;
  std::vector<std::vector<double>> labels_;
};

}  // namespace strand::train
