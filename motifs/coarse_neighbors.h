// The coarse first pass of TF-MoDISco's clustering: each seqlet as a sparse vector of gapped
// k-mers (k = 4..6 of its 20 strongest positions, within 15 bases, weighted by their summed
// contributions; modisco-lite's gapped_kmer.py), L2-normalised, and each seqlet's nearest
// neighbours by cosine similarity on either strand. Only these neighbours get the costly
// aligned Jaccard similarity.
#pragma once

#include <cstdint>
#include <vector>

#include "motifs/score_set.h"
#include "motifs/seqlet.h"

namespace strand::motifs {

/// A seqlet's neighbours, most similar first (itself among them), with their similarities.
struct Neighbours {
  std::vector<std::vector<int64_t>> index;  ///< (n, k)
  std::vector<std::vector<float>> similarity;
};

/// The `k` nearest seqlets of each seqlet (k capped at their number) by max(cosine of the
/// forward embeddings, cosine of one forward and the other reverse); `sign` +1 or -1 scores
/// contributions of that sign as positive.
Neighbours coarse_neighbours(const ScoreSet& scores, const std::vector<Seqlet>& seqlets, int64_t k,
                             int sign, int threads);

}  // namespace strand::motifs
