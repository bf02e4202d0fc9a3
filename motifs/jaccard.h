// TF-MoDISco's continuous Jaccard similarity of two score snippets at their best alignment:
// sum over positions and channels of min(|x|, |y|) signed by sign(x) sign(y), over the sum of
// max(|x|, |y|), the shorter snippet slid along the other as far as a minimum overlap allows
// (modisco-lite's affinitymat.jaccard). Snippets are (length, 8): the hypothetical and the
// actual contributions, each L1-normalised (util.get_2d_data_from_patterns).
#pragma once

#include <cstdint>
#include <vector>

#include "motifs/score_set.h"
#include "motifs/seqlet.h"

namespace strand::motifs {

/// Channels of a snippet: 4 hypothetical then 4 actual contributions.
inline constexpr int64_t kSnippetChannels = 8;

/// The (length, 8) snippet of `seqlet`.
std::vector<float> seqlet_snippet(const ScoreSet& scores, const Seqlet& seqlet);

/// A (length, 8) snippet from (length, 4) mean hypothetical and actual contributions.
std::vector<float> snippet_of(const std::vector<double>& hypothetical,
                              const std::vector<double>& contrib);

/// The same snippet read on the other strand.
std::vector<float> reverse_snippet(const std::vector<float>& snippet);

/// The best score of `x` (x_length positions) against `y` (y_length positions) over the offsets
/// of x's start relative to y's from -pad to y_length - x_length + pad (y padded with zeros),
/// and that offset. Positions of y outside x's span do not count.
struct Alignment {
  float score = 0;
  int64_t offset = 0;
};
Alignment best_jaccard(const float* x, int64_t x_length, const float* y, int64_t y_length,
                       int64_t pad);

/// The padding modisco uses for `length`-long snippets at `min_overlap`: int(length * (1 -
/// min_overlap)) for seqlet affinities, ceil(...) when a seqlet is aligned to a pattern.
int64_t overlap_pad(int64_t length, double min_overlap, bool round_up);

/// The Jaccard similarity of two equally long snippets, unaligned (flattened).
float flat_jaccard(const float* x, const float* y, int64_t size);

}  // namespace strand::motifs
