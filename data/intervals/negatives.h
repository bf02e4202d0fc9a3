// GC-matched background windows from a genome: negatives for a set of peaks, as chrombpnet's
// gc-matched negatives, drawn without replacement from the genome's windows whose GC fraction
// falls in each peak's GC bin, away from every peak and blacklisted region.
//
// Algorithm (deterministic for a seed):
//  1. Each peak's window is the L bases the loader would give the model: centred on the
//     narrowPeak summit (or the interval's midpoint), kept inside its contig. Its GC fraction
//     is (G + C) / (A + C + G + T) and its bin floor(gc * bins) (the top bin includes 1).
//  2. Candidates are the L-base windows starting every `stride` bases of each contig (in FASTA
//     order; only `contigs` when given) that overlap no peak (its interval or its window), no
//     excluded (blacklisted) region, and hold at most max_n_fraction N (or other non-ACGT).
//     They are grouped by GC bin.
//  3. round(ratio * P) requests are made: the peaks in an order shuffled by the seed, cycled
//     (so each peak gets floor(ratio) or ceil(ratio) negatives). Each request draws a
//     uniformly random candidate of its peak's bin and removes it; when that bin is empty the
//     nearest non-empty bin is used (the lower one first on a tie) and counted.
//  4. Negatives are returned sorted by contig (FASTA order) and start.
// With stride >= L (the default, stride = L) no two negatives overlap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"

namespace strand::data {

/// The largest ratio of negatives per peak accepted.
inline constexpr double kMaxNegativesRatio = 1000.0;

/// Settings of sample_gc_matched_negatives().
struct NegativeSamplingOptions {
  int64_t window = 1000;  ///< L: bases of every peak window and negative (> 0)
  double ratio = 1.0;  ///< negatives per peak, in (0, kMaxNegativesRatio]; 0.5: one per two peaks
  int gc_bins = 50;    ///< bins over GC fraction [0, 1] (>= 1)
  double max_n_fraction = 0.01;      ///< candidates with a larger fraction of N are never drawn
  int64_t stride = 0;                ///< candidates start every `stride` bases; 0: window
  std::vector<std::string> contigs;  ///< contigs to draw from; empty: every contig
  bool use_summit = true;            ///< centre peak windows on narrowPeak summits
  uint64_t seed = 0;                 ///< seeds the request order and every draw
};

/// What sample_gc_matched_negatives() found and drew.
struct NegativeSampling {
  std::vector<Interval> positives;  ///< (P) each peak's L-base window, in file order
  std::vector<double> positive_gc;  ///< (P) their GC fractions
  std::vector<Interval> negatives;  ///< the negatives, by contig then start
  std::vector<double> negative_gc;  ///< their GC fractions
  int64_t candidates = 0;           ///< candidate windows left after the exclusions
  int64_t from_other_bins = 0;      ///< draws from a neighbouring bin (the peak's bin was empty)
};

/// Draws GC-matched negatives for `peaks` (validated against `genome`, e.g. by
/// validate_intervals) from `genome`, avoiding `excluded` regions (a blacklist; regions on
/// contigs not in the genome are ignored). Throws DataError for invalid options (naming the
/// option), a contig in options.contigs that the genome lacks, or fewer candidates than the
/// negatives asked for (naming both counts and what to change).
NegativeSampling sample_gc_matched_negatives(const FastaReader& genome, const IntervalSet& peaks,
                                             const std::vector<Interval>& excluded,
                                             const NegativeSamplingOptions& options);

/// Reads a blacklist BED (3 or more columns; '#', track and browser lines skipped) and keeps
/// the regions on contigs of `contigs`. Throws DataError naming the file for a malformed line
/// or when no region lies on a contig of the genome (another assembly's naming, e.g. "1" for
/// "chr1").
std::vector<Interval> read_blacklist(const std::string& path, const std::vector<Contig>& contigs,
                                     const std::string& fasta_path);

}  // namespace strand::data
