// The training windows of ChromBPNet's bias model: non-peak windows whose counts stay below a
// fraction of the peaks', so that what the model learns is the enzyme's sequence preference and
// not the accessibility of open chromatin (chrombpnet's find_bias_hyperparams: the threshold is
// bias_threshold_factor x the 1% quantile of the peaks' total counts over the output window).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/data_builder.h"
#include "app/run_config.h"
#include "data/sources/sequence_source.h"

namespace strand::app {

/// (N) the total profile counts of each window of `source`, over its tracks and output window,
/// without a shift.
std::vector<double> window_total_counts(const data::SequenceSource& source);

/// The `q` quantile (in [0, 1]) of `values` by linear interpolation between order statistics
/// (numpy.quantile's default); throws Error for no values.
double quantile(std::vector<double> values, double q);

/// With data.bias_peaks set: replaces the training and validation splits of `data` by their
/// windows whose total counts are below data.bias_threshold_factor x the 1% quantile of the
/// peaks' totals (the test split is left whole, as chrombpnet does), and appends what was kept
/// to data.description. Throws ConfigError naming the key when the threshold is 0 or no
/// training window is left, or when the data are not intervals with profile bigWigs.
void keep_low_count_windows(const RunConfig& config, RunData& data);

}  // namespace strand::app
