// Scores and p-values (variants/variant_scores.h).
#include "variants/variant_scores.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strand::variants {

const char* output_kind_name(OutputKind kind) {
  switch (kind) {
    case OutputKind::kValue:
      return "value";
    case OutputKind::kLogCounts:
      return "log_counts";
    case OutputKind::kCounts:
      return "counts";
    case OutputKind::kProfile:
      return "profile";
  }
  return "?";
}

const std::vector<std::string>& score_names(OutputKind kind) {
  static const std::vector<std::string> values = {"ref", "alt", "diff"};
  static const std::vector<std::string> counts = {"ref", "alt", "diff", "log2fc"};
  static const std::vector<std::string> profile = {"jsd"};
  switch (kind) {
    case OutputKind::kValue:
      return values;
    case OutputKind::kLogCounts:
    case OutputKind::kCounts:
      return counts;
    case OutputKind::kProfile:
      return profile;
  }
  return values;
}

Tail score_tail(const std::string& score) {
  if (score == "diff" || score == "log2fc") return Tail::kBoth;
  if (score == "jsd") return Tail::kRight;
  return Tail::kNone;
}

double log2_fold_change(OutputKind kind, double ref, double alt) {
  if (kind == OutputKind::kLogCounts) return (alt - ref) / std::log(2.0);
  return std::log2(alt / ref);
}

double jensen_shannon_distance(const float* alt_logits, const float* ref_logits, int64_t n) {
  // Softmax of each, in double, from its largest logit.
  const auto normaliser = [n](const float* logits, double& top) {
    top = *std::max_element(logits, logits + n);
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(logits[i]) - top);
    return sum;
  };
  double p_top = 0.0, q_top = 0.0;
  const double p_sum = normaliser(alt_logits, p_top);
  const double q_sum = normaliser(ref_logits, q_top);
  // scipy: sum(rel_entr(p, m)) + sum(rel_entr(q, m)), / ln(base), then sqrt(half of it).
  double divergence = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double p = std::exp(static_cast<double>(alt_logits[i]) - p_top) / p_sum;
    const double q = std::exp(static_cast<double>(ref_logits[i]) - q_top) / q_sum;
    const double m = 0.5 * (p + q);
    if (p > 0.0) divergence += p * std::log(p / m);
    if (q > 0.0) divergence += q * std::log(q / m);
  }
  return std::sqrt(std::max(0.0, divergence / std::log(2.0) / 2.0));
}

double empirical_p_value(const std::vector<float>& sorted_null, double value, Tail tail) {
  if (sorted_null.empty() || tail == Tail::kNone || std::isnan(value)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const auto n = static_cast<double>(sorted_null.size());
  // #{null >= value}: those from the first not below it.
  const auto at_least = static_cast<double>(
      sorted_null.end() -
      std::lower_bound(sorted_null.begin(), sorted_null.end(), value,
                       [](float a, double b) { return static_cast<double>(a) < b; }));
  const double right = (at_least + 1.0) / (n + 1.0);
  if (tail == Tail::kRight) return right;
  const auto at_most = static_cast<double>(
      std::upper_bound(sorted_null.begin(), sorted_null.end(), value,
                       [](double a, float b) { return a < static_cast<double>(b); }) -
      sorted_null.begin());
  const double left = (at_most + 1.0) / (n + 1.0);
  return std::min(1.0, 2.0 * std::min(left, right));
}

}  // namespace strand::variants
