// A pattern (TF-MoDISco's SeqletSet): seqlets aligned to one another, each spanning the
// pattern's full length, and the sums of their tracks, whose means are the pattern's PPM
// (sequence), CWM (contributions) and hypothetical CWM. Seqlets are added at their best
// alignment, growing the pattern where they overhang it (modisco-lite's
// merge_in_seqlets_filledges), and a pattern is polished by trimming it to its most informative
// window and adding flanks (polish_pattern).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "motifs/score_set.h"
#include "motifs/seqlet.h"

namespace strand::motifs {

/// Seqlets aligned into a motif; every seqlet is `length` long.
class Pattern {
 public:
  Pattern() = default;
  /// A pattern of equally long seqlets (the first of any seqlet at the same bases is kept).
  Pattern(const ScoreSet& scores, const std::vector<Seqlet>& seqlets);

  [[nodiscard]] int64_t length() const { return length_; }
  [[nodiscard]] const std::vector<Seqlet>& seqlets() const { return seqlets_; }
  /// (length, 4) means of each track over the seqlets.
  [[nodiscard]] std::vector<double> mean(Track track) const;
  /// Adds a seqlet as long as the pattern, unless one at the same bases is already in.
  void add(const ScoreSet& scores, const Seqlet& seqlet);
  /// The pattern with every seqlet grown by `left` and `right` bases (those that would leave
  /// their sequence dropped); nullopt when none is left.
  [[nodiscard]] std::optional<Pattern> expanded(const ScoreSet& scores, int64_t left,
                                                int64_t right) const;
  /// The pattern cut to positions [start, end).
  [[nodiscard]] Pattern trimmed(const ScoreSet& scores, int64_t start, int64_t end) const;

 private:
  void accumulate(const ScoreSet& scores, const Seqlet& seqlet);

  int64_t length_ = 0;
  std::vector<Seqlet> seqlets_;
  std::set<std::array<int64_t, 3>> keys_;    // (example, start, end) of each seqlet
  std::array<std::vector<double>, 3> sums_;  // one-hot, contrib, hypothetical: (length, 4)
};

/// How a seqlet is compared with the pattern it joins.
enum class AlignMetric {
  kJaccard,  ///< continuous Jaccard of L1-normalised hypothetical + actual contributions
  kPearson,  ///< Pearson-like cosine of mean-centred actual contributions
};

/// Where a child (a seqlet or a pattern, by its mean tracks) fits on a parent pattern: the
/// offset of its first position in the parent's, its strand and the similarity there.
struct Placement {
  int64_t offset = 0;
  bool revcomp = false;
  double score = 0;
};

/// The best placement of a (length, 4) child given by its hypothetical and actual contributions
/// against the parent's means, `min_overlap` of the child overlapping.
Placement place(const Pattern& parent, const std::vector<double>& child_hypothetical,
                const std::vector<double>& child_contrib, AlignMetric metric, double min_overlap);

/// Adds each seqlet, in order, at its best placement, growing the pattern (and the seqlet) to
/// cover both; seqlets that would leave their sequence are skipped.
Pattern merge_seqlets(const ScoreSet& scores, Pattern parent, const std::vector<Seqlet>& seqlets,
                      AlignMetric metric, double min_overlap);

/// Information content (bits) of each position of a (length, 4) PPM over `background`.
std::vector<double> position_information(const std::vector<double>& ppm,
                                         const std::array<double, 4>& background,
                                         double pseudocount = 0.001);

/// Trims to the `window` positions of highest total information and adds `flank` bases on each
/// side; nullopt when no seqlet survives the flanks.
std::optional<Pattern> polish(const ScoreSet& scores, const Pattern& pattern, int64_t flank,
                              int64_t window, const std::array<double, 4>& background);

}  // namespace strand::motifs
