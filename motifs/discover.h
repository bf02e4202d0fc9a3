// TF-MoDISco motif discovery end to end (modisco-lite's TFMoDISco and seqlets_to_patterns):
// seqlets per sign, two rounds of coarse neighbours -> aligned Jaccard -> density-adapted graph
// -> Leiden clusters -> one pattern per cluster (seqlets merged at their best alignment, then
// polished), the patterns merged when they are one motif, and those with too few seqlets or too
// little information dropped.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "motifs/collapse.h"
#include "motifs/pattern.h"
#include "motifs/score_set.h"
#include "motifs/seqlet_calls.h"

namespace strand::motifs {

/// The settings of a discovery; the `modisco motifs` command's defaults (2 Leiden runs: its -l;
/// the Python API's TFMoDISco() runs 50).
struct DiscoverOptions {
  SeqletOptions seqlets;
  int64_t min_metacluster_size = 100;  ///< fewer seqlets of a sign: no patterns of that sign
  double min_overlap = 0.7;
  int64_t neighbours = 500;  ///< coarse nearest neighbours given the fine similarity
  double correlation_threshold = 0.15;
  double perplexity = 10.0;
  int leiden_runs = 2;
  int64_t trim_window = 30;  ///< polish: the most informative window kept
  int64_t flank = 10;        ///< polish: bases added on each side of it
  CollapseOptions collapse;
  int64_t min_seqlets = 20;  ///< final patterns: at least this many seqlets
  double min_ic_in_window = 0.6;
  int64_t ic_window = 6;
  double subcluster_perplexity = 50;
  bool subpatterns = true;  ///< subcluster each final pattern
  int threads = 1;
};

/// The patterns of one sign, largest first, and each one's subpatterns (motifs/subpatterns.h).
struct Metacluster {
  int sign = 1;
  std::vector<Pattern> patterns;
  std::vector<std::vector<Pattern>> subpatterns;  ///< (patterns), each largest first
};

/// What a discovery found.
struct Discovery {
  SeqletCalls calls;
  Metacluster positive{1, {}};
  Metacluster negative{-1, {}};
  std::array<double, 4> background{0.25, 0.25, 0.25, 0.25};  ///< base frequencies of the seqlets
};

/// Runs the discovery; `log` (may be empty) gets one line per step.
Discovery discover(const ScoreSet& scores, const DiscoverOptions& options,
                   const std::function<void(const std::string&)>& log = {});

/// The patterns of one sign's seqlets.
std::vector<Pattern> seqlets_to_patterns(const ScoreSet& scores, std::vector<Seqlet> seqlets,
                                         int sign, const DiscoverOptions& options,
                                         const std::function<void(const std::string&)>& log);

}  // namespace strand::motifs
