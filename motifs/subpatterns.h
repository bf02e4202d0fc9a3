// Subpatterns (modisco-lite's SeqletSet.compute_subpatterns): a final pattern's seqlets clustered
// again among themselves: their Jaccard similarities at the pattern's alignment (flattened), each
// seqlet's 3 x perplexity + 2 nearest, t-SNE conditional probabilities at perplexity 50,
// symmetrised and normalised, and Leiden clusters. Each cluster is a subpattern, largest first;
// the HDF5 file stores them as subpattern_0, subpattern_1, ... inside the pattern's group.
#pragma once

#include <vector>

#include "motifs/pattern.h"
#include "motifs/score_set.h"

namespace strand::motifs {

/// The subpatterns of `pattern`, largest first (one, the pattern itself, when its seqlets do
/// not split).
std::vector<Pattern> subpatterns(const ScoreSet& scores, const Pattern& pattern, double perplexity,
                                 int leiden_runs, int threads);

}  // namespace strand::motifs
