// Seqlets as TF-MoDISco calls them (modisco-lite's extract_seqlets): the contributions summed
// over a sliding window, thresholds from a Laplace null at a target FDR (motifs/
// null_thresholds.h), windows taken greedily from the strongest with their neighbourhood
// suppressed, flanks added, and each seqlet given the sign of its central window's sum.
#pragma once

#include <cstdint>
#include <vector>

#include "motifs/score_set.h"
#include "motifs/seqlet.h"

namespace strand::motifs {

/// The defaults of the `modisco motifs` command (its -z, -f and FDR; the Python API's are 21, 10
/// and 0.2).
struct SeqletOptions {
  int64_t window = 20;  ///< sliding window (modisco's sliding_window_size, -z)
  int64_t flank = 5;    ///< bases added on each side of a window (-f)
  double target_fdr = 0.05;
  double min_passing_windows_frac = 0.03;
  double max_passing_windows_frac = 0.2;
  double weak_threshold_for_counting_sign = 0.8;
  int64_t max_seqlets = 20000;  ///< per sign (modisco's max_seqlets_per_metacluster)
  int threads = 1;
};

/// The seqlets of each sign, in sequence order, at most max_seqlets each.
struct SeqletCalls {
  std::vector<Seqlet> positive;
  std::vector<Seqlet> negative;
  double positive_threshold = 0;  ///< on the windowed sums
  double negative_threshold = 0;
  double sign_threshold = 0;  ///< |central sum| above which a seqlet counts for its sign
};

/// Calls the seqlets of `scores`. Throws when the sequences are shorter than window + 2 flanks.
SeqletCalls call_seqlets(const ScoreSet& scores, const SeqletOptions& options);

}  // namespace strand::motifs
