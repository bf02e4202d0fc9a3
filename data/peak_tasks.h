// Peak tasks: several peak files (one per TF, cell type or assay) turned into one multi-task
// dataset, as Basset's preprocessing does: the windows are the peaks' windows (summit-centred),
// near-duplicates merged, and each window is labelled 1 for every file with a peak in its centre,
// 0 otherwise; GC-matched background windows (data/negatives.h) may be added with every label 0.
//
// Algorithm (deterministic):
//  1. Each peak of each file gives the L-base window the loader would give the model (centred on
//     the narrowPeak summit or the interval's midpoint, kept inside its contig).
//  2. The windows of all files, sorted by contig (FASTA order) and start, are walked in order;
//     a window whose centre lies less than merge_distance bases after the last kept window's
//     centre on the same contig is dropped (default L / 2: windows overlap by at most half).
//  3. Window w is labelled 1 for file t when a peak of t made w or was merged into it in step 2,
//     or when a peak interval of t overlaps w's central label_fraction x L bases (default the
//     central half); else 0. So every peak labels a window 1 for its file, also a peak near a
//     contig end whose window was moved inside the contig, off the peak's centre.
//  4. With negatives_ratio > 0, round(ratio x windows) GC-matched negatives are drawn against
//     all the peaks, labelled 0 for every task, and merged into the contig/start order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/fasta_reader.h"
#include "data/intervals.h"
#include "data/negatives.h"

namespace strand::data {

/// Settings of label_peak_tasks().
struct PeakTaskOptions {
  int64_t window = 1000;           ///< L (> 0)
  int64_t merge_distance = 0;      ///< between kept window centres; 0: L / 2
  double label_fraction = 0.5;     ///< of the window, centred, that a peak must overlap (0, 1]
  bool use_summit = true;          ///< centre narrowPeak windows on their summits
  double negatives_ratio = 0.0;    ///< GC-matched negatives per window (0: none)
  std::vector<Interval> excluded;  ///< regions negatives avoid (a blacklist)
  uint64_t seed = 0;               ///< seeds the negatives
};

/// What label_peak_tasks() made: windows with one 0/1 label per peak file.
struct PeakTasks {
  IntervalSet windows;    ///< (N) windows, labels (N, T), task names (T); sorted
  int64_t peaks = 0;      ///< peaks read over all files
  int64_t merged = 0;     ///< peak windows dropped as near-duplicates
  int64_t negatives = 0;  ///< GC-matched negatives among the windows
};

/// Labels the windows of `peak_sets` (one IntervalSet per task, each validated against
/// `genome`; `task_names` one per set) as above. Throws DataError for bad options (naming
/// them), no peaks, or a names count that differs from the sets'.
PeakTasks label_peak_tasks(const FastaReader& genome, const std::vector<IntervalSet>& peak_sets,
                           const std::vector<std::string>& task_names,
                           const PeakTaskOptions& options);

}  // namespace strand::data
