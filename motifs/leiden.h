// Leiden community detection (modularity, weighted) through igraph's C library, the best of
// several seeded runs, as modisco-lite's cluster.LeidenCluster does with leidenalg.
#pragma once

#include <cstdint>
#include <vector>

#include "motifs/affinity_graph.h"

namespace strand::motifs {

/// The membership (cluster ids 0..k-1, the largest clusters first) of the highest-modularity
/// partition over `runs` Leiden runs seeded 1..runs (each run iterated until stable). igraph's
/// random generator is process-wide: calls are serialised.
std::vector<int64_t> leiden_clusters(const WeightedGraph& graph, int runs);

}  // namespace strand::motifs
