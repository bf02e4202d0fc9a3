// `strand inspect`: what a dataset holds, per split: counts, class balance (mean label), GC
// content, length range and N fraction, and the totals of its bigWig signal tracks.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "app/data_builder.h"
#include "app/run_config.h"

namespace strand::cli {

/// One signal track of a split: its sum over every sample's (unshifted) window.
struct TrackStats {
  std::string kind;  // "profile" (over the output window) or "control" (over the window)
  std::string name;  // the bigWig's file name
  double total = 0.0;
  double mean_per_window = 0.0;
};

struct SplitStats {
  std::string name;
  int64_t count = 0;
  int64_t targets = 0;
  std::vector<double> mean_label;  // per target, over valid labels
  double gc_fraction = 0.0;        // (G + C) / (A + C + G + T) of the windows the model sees
  double n_fraction = 0.0;         // N / all bases of those windows
  int64_t min_length = 0, max_length = 0;  // raw interval/record lengths
  int64_t window = 0;
  std::vector<TrackStats> tracks;  // profile tracks, then control tracks
};

SplitStats split_stats(const app::DataSplit& split);

/// Prints the statistics of every split of the configured data; returns them.
std::vector<SplitStats> run_inspect(const app::RunConfig& config, std::ostream& out);

}  // namespace strand::cli
