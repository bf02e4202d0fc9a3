// `strand negatives`: GC-matched background windows for a peak file (data/intervals/negatives.h),
// written as a BED, and optionally a labelled BED of peaks (1) and negatives (0) that trains
// directly.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace strand::cli {

struct NegativesOptions {
  std::string fasta;      // the genome
  std::string peaks;      // BED (3+ columns) or narrowPeak
  std::string format;     // bed or narrowpeak; default: narrowpeak for *.narrowPeak
  std::string blacklist;  // BED of regions to avoid; optional
  double ratio = 1.0;     // negatives per peak
  int64_t window = 1000;  // bases of every window
  int64_t stride = 0;     // bases between candidate windows; 0: the window
  int64_t gc_bins = 50;   // GC-fraction bins
  double max_n_fraction = 0.01;
  std::string chroms;  // contigs to draw from, comma-separated; empty: all
  uint64_t seed = 0;
  std::string out;           // negatives BED
  std::string labelled_out;  // peaks' windows (1) + negatives (0) with a '#' header; optional
};

/// Draws the negatives and writes them (atomically: both files or neither); prints counts, the
/// GC of peaks and negatives, and a `strand train` command for the labelled BED. Returns the
/// number of negatives. Throws ConfigError naming the flag or file for bad input.
int64_t run_negatives(const NegativesOptions& options, std::ostream& log);

}  // namespace strand::cli
