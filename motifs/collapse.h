// Merging patterns that are one motif (modisco-lite's SimilarPatternsCollapser): two patterns
// merge when they align well (Pearson-like similarity of their CWMs at the best offset and
// strand) and their seqlets are hard to tell apart (the AUROC of within- versus between-pattern
// Jaccard similarities, as "cross contamination"), unless some pair in the merged group breaks
// a dealbreaker threshold. Repeated until nothing merges.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "motifs/pattern.h"
#include "motifs/score_set.h"

namespace strand::motifs {

/// modisco's defaults.
struct CollapseOptions {
  double min_overlap = 0.7;
  /// (cross contamination >=, similarity >=): merge when any holds.
  std::vector<std::pair<double, double>> merge = {{0.8, 0.8}, {0.5, 0.85}, {0.2, 0.9}};
  /// (cross contamination <=, similarity <=): never merge a group where any holds for a pair.
  std::vector<std::pair<double, double>> dealbreaker = {
      {0.4, 0.75}, {0.2, 0.8}, {0.1, 0.85}, {0.0, 0.9}};
  int64_t max_seqlets_subsample = 1000;  ///< seqlets per pattern in the AUROC
  int64_t flank = 10;                    ///< polish after a merge
  int64_t window = 30;
  int threads = 1;
};

/// The AUROC of telling `positive` scores from `negative` ones (ties count half).
double roc_auc(std::vector<double> negative, std::vector<double> positive);

/// The patterns after merging, largest first.
std::vector<Pattern> collapse_patterns(const ScoreSet& scores, std::vector<Pattern> patterns,
                                       const std::array<double, 4>& background,
                                       const CollapseOptions& options);

}  // namespace strand::motifs
