// Instances of known patterns in new contribution scores (`strand motifs hits`), by a simple
// documented rule rather than finemo's sparse fit: seqlets are called on the scores as
// discovery calls them (motifs/seqlet_calls.h), and each seqlet is given the pattern of its
// sign whose trimmed CWM best matches it, the continuous Jaccard similarity of the L1-normalised
// (hypothetical, actual) contributions at each offset and strand where the pattern lies inside
// the seqlet's region (the seqlet with the pattern's width added on each side); a hit when that
// similarity reaches a minimum. At most one hit per seqlet, so hits never overlap within a
// seqlet's suppressed neighbourhood.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "motifs/score_set.h"
#include "motifs/seqlet_calls.h"

namespace strand::motifs {

/// A pattern as patterns.npz stores it: (width, 4) mean tracks, trimmed to its core.
struct KnownPattern {
  std::string name;  ///< pos_pattern_0, neg_pattern_1, ...
  int sign = 1;
  std::vector<double> hypothetical;
  std::vector<double> contrib;
  [[nodiscard]] int64_t width() const { return static_cast<int64_t>(contrib.size() / 4); }
};

/// The patterns of `folder`/patterns.npz, each trimmed where its CWM falls under 30% of its
/// peak (as motifs.meme is). Throws naming the file when it holds no pattern.
std::vector<KnownPattern> read_patterns(const std::filesystem::path& folder);

/// One instance.
struct Hit {
  int64_t example = 0;
  int64_t start = 0, end = 0;  ///< the pattern's span in the sequence
  bool revcomp = false;
  size_t pattern = 0;       ///< index into the patterns
  double similarity = 0;    ///< Jaccard with the pattern
  double contribution = 0;  ///< sum of the actual contributions over the span
};

/// The hits of `patterns` in `scores`, in sequence then position order.
std::vector<Hit> find_hits(const ScoreSet& scores, const std::vector<KnownPattern>& patterns,
                           const SeqletOptions& seqlets, double min_similarity);

/// The hits as TSV: example start end strand pattern similarity contribution.
std::string hits_tsv(const std::vector<Hit>& hits, const std::vector<KnownPattern>& patterns);

}  // namespace strand::motifs
