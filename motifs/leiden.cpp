// igraph_community_leiden with modularity's node weights and resolution.
#include "motifs/leiden.h"

#include <fmt/format.h>
#include <igraph/igraph.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>

namespace strand::motifs {
namespace {

std::mutex igraph_mutex;

void check(igraph_error_t status, const char* what) {
  if (status != IGRAPH_SUCCESS) {
    throw std::runtime_error(fmt::format("igraph: {} failed: {}", what, igraph_strerror(status)));
  }
}

// Owns the igraph objects of one clustering.
struct IgraphState {
  igraph_t graph{};
  igraph_vector_t weights{}, strengths{};
  igraph_vector_int_t membership{};
  bool has_graph = false;
  IgraphState() {
    igraph_vector_init(&weights, 0);
    igraph_vector_init(&strengths, 0);
    igraph_vector_int_init(&membership, 0);
  }
  ~IgraphState() {
    if (has_graph) igraph_destroy(&graph);
    igraph_vector_destroy(&weights);
    igraph_vector_destroy(&strengths);
    igraph_vector_int_destroy(&membership);
  }
};

// Cluster ids renumbered so that the largest cluster is 0 (ties: the first seen).
std::vector<int64_t> by_size(const std::vector<int64_t>& membership) {
  std::map<int64_t, int64_t> sizes;
  for (int64_t m : membership) sizes[m]++;
  std::vector<std::pair<int64_t, int64_t>> order(sizes.begin(), sizes.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<int64_t, int64_t> rename;
  for (size_t k = 0; k < order.size(); ++k) rename[order[k].first] = static_cast<int64_t>(k);
  std::vector<int64_t> out;
  for (int64_t m : membership) out.push_back(rename[m]);
  return out;
}

}  // namespace

std::vector<int64_t> leiden_clusters(const WeightedGraph& g, int runs) {
  if (g.vertices == 0) return {};
  std::lock_guard<std::mutex> lock(igraph_mutex);
  IgraphState s;
  igraph_vector_int_t edges;
  igraph_vector_int_init(&edges, static_cast<igraph_integer_t>(2 * g.from.size()));
  for (size_t e = 0; e < g.from.size(); ++e) {
    VECTOR(edges)[2 * e] = g.from[e];
    VECTOR(edges)[2 * e + 1] = g.to[e];
  }
  const igraph_error_t made = igraph_create(&s.graph, &edges, g.vertices, IGRAPH_UNDIRECTED);
  igraph_vector_int_destroy(&edges);
  check(made, "creating the graph");
  s.has_graph = true;
  check(igraph_vector_resize(&s.weights, static_cast<igraph_integer_t>(g.weight.size())), "resize");
  double total = 0;
  for (size_t e = 0; e < g.weight.size(); ++e) {
    VECTOR(s.weights)[e] = g.weight[e];
    total += g.weight[e];
  }
  check(igraph_strength(&s.graph, &s.strengths, igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS,
                        &s.weights),
        "strength");
  std::vector<int64_t> best;
  double best_quality = -1e300;
  for (int run = 1; run <= std::max(1, runs); ++run) {
    igraph_rng_seed(igraph_rng_default(), static_cast<igraph_uint_t>(run * 100));
    igraph_integer_t clusters = 0;
    igraph_real_t quality = 0;
    check(igraph_community_leiden(&s.graph, &s.weights, &s.strengths, 1.0 / (2.0 * total), 0.01,
                                  false, -1, &s.membership, &clusters, &quality),
          "Leiden");
    if (quality > best_quality) {
      best_quality = quality;
      best.assign(VECTOR(s.membership), VECTOR(s.membership) + g.vertices);
    }
  }
  return by_size(best);
}

}  // namespace strand::motifs
