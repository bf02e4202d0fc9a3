// Subclustering a pattern's seqlets.
#include "motifs/subpatterns.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "motifs/affinity_graph.h"
#include "motifs/jaccard.h"
#include "motifs/leiden.h"

namespace strand::motifs {
namespace {

// sklearn's _binary_search_perplexity for one row: P_j = exp(-d_j * beta) / sum, beta chosen so
// that the entropy of P is log(perplexity).
std::vector<double> conditional_probabilities(const std::vector<double>& d, double perplexity) {
  const double desired = std::log(perplexity);
  double beta = 1.0, lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  std::vector<double> p(d.size());
  for (int step = 0; step < 100; ++step) {
    double sum = 0;
    for (size_t j = 0; j < d.size(); ++j) sum += p[j] = std::exp(-d[j] * beta);
    sum = std::max(sum, 1e-8);
    double entropy = 0;
    for (size_t j = 0; j < d.size(); ++j) {
      p[j] /= sum;
      entropy += d[j] * p[j];
    }
    entropy = std::log(sum) + beta * entropy;
    const double diff = entropy - desired;
    if (std::abs(diff) <= 1e-5) break;
    if (diff > 0) {
      lo = beta;
      beta = std::isinf(hi) ? beta * 2 : (beta + hi) / 2;
    } else {
      hi = beta;
      beta = std::isinf(lo) ? beta / 2 : (beta + lo) / 2;
    }
  }
  return p;
}

// Each seqlet's nearest seqlets (itself first) by flattened Jaccard, with their distances.
void nearest(const std::vector<std::vector<float>>& x, int64_t k, int threads,
             std::vector<std::vector<int64_t>>& index, std::vector<std::vector<double>>& dist) {
  const auto n = static_cast<int64_t>(x.size());
  index.assign(x.size(), {});
  dist.assign(x.size(), {});
#pragma omp parallel for num_threads(threads) schedule(dynamic, 8)
  for (int64_t i = 0; i < n; ++i) {
    std::vector<float> s(x.size());
    for (int64_t j = 0; j < n; ++j) {
      s[j] = flat_jaccard(x[j].data(), x[i].data(), static_cast<int64_t>(x[i].size()));
    }
    s[i] = std::numeric_limits<float>::infinity();
    std::vector<int64_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&s](int64_t a, int64_t b) { return s[a] != s[b] ? s[a] > s[b] : a < b; });
    for (int64_t r = 1; r < k; ++r) {  // modisco's neighbours 1..k: the seqlet itself left out
      const double a = std::max<double>(s[order[r]], 1e-7);
      index[i].push_back(order[r]);
      dist[i].push_back(std::max(std::log(1.0 / (0.5 * a) - 1.0), 0.0));
    }
  }
}

}  // namespace

std::vector<Pattern> subpatterns(const ScoreSet& scores, const Pattern& pattern, double perplexity,
                                 int leiden_runs, int threads) {
  const std::vector<Seqlet>& seqlets = pattern.seqlets();
  const auto n = static_cast<int64_t>(seqlets.size());
  if (n < 3) return {pattern};
  std::vector<std::vector<float>> x;
  for (const Seqlet& s : seqlets) x.push_back(seqlet_snippet(scores, s));
  const int64_t k = std::min<int64_t>(static_cast<int64_t>(perplexity * 3 + 2), n);
  std::vector<std::vector<int64_t>> index;
  std::vector<std::vector<double>> dist;
  nearest(x, k, threads, index, dist);
  // P + P^T over its total, as an undirected graph.
  std::map<std::pair<int64_t, int64_t>, double> sym;
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<double> p = conditional_probabilities(dist[i], perplexity);
    for (size_t r = 0; r < p.size(); ++r) {
      const int64_t j = index[i][r];
      sym[{std::min(i, j), std::max(i, j)}] += p[r];
      total += 2 * p[r];
    }
  }
  WeightedGraph graph{n, {}, {}, {}};
  for (const auto& [edge, w] : sym) {
    graph.from.push_back(edge.first), graph.to.push_back(edge.second);
    graph.weight.push_back(2 * w / total);
  }
  const std::vector<int64_t> membership = leiden_clusters(graph, leiden_runs, threads);
  const int64_t clusters = *std::max_element(membership.begin(), membership.end()) + 1;
  std::vector<std::vector<Seqlet>> members(static_cast<size_t>(clusters));
  for (int64_t i = 0; i < n; ++i) members[membership[i]].push_back(seqlets[i]);
  std::vector<Pattern> out;
  for (const auto& m : members) out.emplace_back(scores, m);  // by_size: largest first
  return out;
}

}  // namespace strand::motifs
