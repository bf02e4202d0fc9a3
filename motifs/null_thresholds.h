// The significance thresholds of TF-MoDISco's seqlet calling: a Laplace null fitted to the
// windowed scores on each side of their mode, and the threshold where an isotonic regression of
// "real versus null" reaches the target false discovery rate (modisco-lite's
// extract_seqlets._laplacian_null and _isotonic_thresholds).
#pragma once

#include <cstdint>
#include <vector>

namespace strand::motifs {

/// numpy.percentile(values, q) (linear interpolation) of values sorted ascending.
double percentile_of_sorted(const std::vector<double>& sorted, double q);

/// The mode of `values` by a histogram of 1000 bins refined by a second one inside the first's
/// fullest bin: the centre of the second's fullest bin.
double histogram_mode(const std::vector<double>& values);

/// Draws `samples` values from two Laplace distributions meeting at the mode of `values`, each
/// side's rate the most aggressive that its 5th..95th percentiles imply, a side picked with the
/// probability of values on it. Returns the draws >= 0 and < 0.
struct NullDraws {
  std::vector<double> positive;
  std::vector<double> negative;
};
NullDraws laplace_null(const std::vector<double>& values, int64_t samples, uint64_t seed);

/// Piecewise-linear isotonic regression (pool adjacent violators, weighted, ties in x pooled
/// first) of y on x, increasing; evaluates as sklearn's IsotonicRegression(out_of_bounds="clip").
class IsotonicFit {
 public:
  IsotonicFit(const std::vector<double>& x, const std::vector<double>& y,
              const std::vector<double>& weight);
  [[nodiscard]] double operator()(double x) const;
  [[nodiscard]] double x_min() const { return xs_.front(); }
  [[nodiscard]] double x_max() const { return xs_.back(); }

 private:
  std::vector<double> xs_, ys_;
};

/// The first of `values` (ordered from weakest to strongest: ascending for the positive side,
/// descending for the negative) whose estimated precision against the null reaches
/// 1 - target_fdr; `increasing`: the positive side.
double isotonic_threshold(const std::vector<double>& values, const std::vector<double>& null,
                          bool increasing, double target_fdr);

}  // namespace strand::motifs
