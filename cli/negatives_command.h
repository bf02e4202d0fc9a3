// `strand negatives`: GC-matched background windows for a peak file (data/intervals/negatives.h),
// written as a BED, and optionally a labelled BED of peaks (1) and negatives (0) that trains
// directly.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/config_keys.h"
#include "data/intervals/intervals.h"
#include "data/intervals/negatives.h"

namespace strand::cli {

/// The settings of `strand negatives`, set by its flags (negatives_keys()): the files, and the
/// sampling's own options (window, ratio, stride, GC bins, N fraction, contigs, seed).
struct NegativesOptions {
  std::string fasta;                           // the genome
  std::string peaks;                           // BED (3+ columns) or narrowPeak
  std::optional<data::IntervalFormat> format;  // default: narrowpeak for *.narrowPeak, else bed
  std::string blacklist;                       // BED of regions to avoid; optional
  data::NegativeSamplingOptions sampling;
  std::string out;           // negatives BED
  std::string labelled_out;  // peaks' windows (1) + negatives (0) with a '#' header; optional
};

/// The rows of NegativesOptions: every flag of `strand negatives`.
const std::vector<app::ConfigKey>& negatives_keys();

/// Draws the negatives and writes them (atomically: both files or neither); prints counts, the
/// GC of peaks and negatives, and a `strand train` command for the labelled BED. Returns the
/// number of negatives. Throws ConfigError naming the flag or file for bad input.
int64_t run_negatives(const NegativesOptions& options, std::ostream& log);

}  // namespace strand::cli
