// Regression metrics: Pearson and Spearman correlations of predictions against real-valued
// targets (counts, signal), and the profile correlation BPNet reports.
#pragma once

#include <cstdint>
#include <span>

namespace strand::train {

/// Pearson's correlation coefficient of x and y (same length). NaN for fewer than two pairs or
/// when either has zero variance. Throws std::invalid_argument for different lengths or a
/// non-finite value.
[[nodiscard]] double pearson(std::span<const double> x, std::span<const double> y);

/// Spearman's rank correlation: Pearson of the ranks, ties given their average rank (as
/// scipy.stats.spearmanr). NaN as for pearson().
[[nodiscard]] double spearman(std::span<const double> x, std::span<const double> y);

/// Sums the Pearson correlation of each profile of `predicted` and `observed` (both (N, L)
/// row-major, N profiles of L positions) into `sum` and counts them into `count`, skipping
/// profiles where either side is constant (their correlation is undefined). The mean over
/// profiles is sum / count.
void add_profile_correlations(std::span<const float> predicted, std::span<const float> observed,
                              int64_t length, double& sum, int64_t& count);

}  // namespace strand::train
