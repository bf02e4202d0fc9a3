// Leiden community detection (modularity, weighted) through igraph's C library, the best of
// several seeded runs, as modisco-lite's cluster.LeidenCluster does with leidenalg.
#pragma once

#include <cstdint>
#include <vector>

#include "motifs/affinity_graph.h"

namespace strand::motifs {

/// The membership (cluster ids 0..k-1, the largest clusters first) of the highest-modularity
/// partition over `runs` Leiden runs seeded 1..runs (each run iterated until stable; ties keep
/// the lower seed, so the result does not depend on `processes`). igraph's C library is not
/// thread-safe (its random generator and error stack are process-wide), so calls are serialised
/// and the runs are spread over `processes` forked processes instead of threads; a child that
/// fails has its seeds run again here.
std::vector<int64_t> leiden_clusters(const WeightedGraph& graph, int runs, int processes = 1);

}  // namespace strand::motifs
