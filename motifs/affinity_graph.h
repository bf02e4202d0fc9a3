// From seqlets to the weighted graph TF-MoDISco clusters: the aligned Jaccard similarity of each
// seqlet to its coarse neighbours, the neighbours whose fine and coarse similarities disagree
// dropped (Spearman correlation), and the similarities turned into t-SNE-like conditional
// probabilities at a fixed perplexity, symmetrised (modisco-lite's _filter_by_correlation and
// _density_adaptation).
#pragma once

#include <cstdint>
#include <vector>

#include "motifs/coarse_neighbors.h"
#include "motifs/score_set.h"
#include "motifs/seqlet.h"

namespace strand::motifs {

/// The best Jaccard similarity, over alignments and strands, of every seqlet (row) with each of
/// its neighbours (the neighbour slid along the seqlet, `min_overlap` of it overlapping).
std::vector<std::vector<float>> fine_similarities(const ScoreSet& scores,
                                                  const std::vector<Seqlet>& seqlets,
                                                  const Neighbours& neighbours, double min_overlap,
                                                  int threads);

/// The rows to keep: those whose fine and coarse similarities (over neighbours with a nonzero
/// fine one) have a Spearman correlation above `threshold`.
std::vector<char> correlated_rows(const Neighbours& coarse,
                                  const std::vector<std::vector<float>>& fine, double threshold);

/// Undirected weighted edges: i <= j (i == j: a self-loop).
struct WeightedGraph {
  int64_t vertices = 0;
  std::vector<int64_t> from, to;
  std::vector<double> weight;
};

/// The density-adapted affinity graph of rows with their neighbours' similarities.
WeightedGraph density_adapted_graph(const std::vector<std::vector<int64_t>>& neighbours,
                                    const std::vector<std::vector<float>>& similarity,
                                    double perplexity);

}  // namespace strand::motifs
