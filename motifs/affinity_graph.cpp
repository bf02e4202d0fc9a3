// Fine similarities, the correlation filter and the density adaptation.
#include "motifs/affinity_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "motifs/jaccard.h"

namespace strand::motifs {
namespace {

// Average ranks (ties share their mean rank).
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> out(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) out[order[k]] = (double(i) + double(j)) / 2.0;
    i = j + 1;
  }
  return out;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : std::numeric_limits<double>::quiet_NaN();
}

// t-SNE's precision for one row's distances: the beta at which exp(-d * beta), with a unit
// self term, has entropy log(perplexity) (modisco's util.binary_search_perplexity).
double perplexity_beta(const std::vector<double>& distances, double perplexity) {
  const double desired = std::log(perplexity);
  double lo = -std::numeric_limits<double>::infinity(),
         hi = std::numeric_limits<double>::infinity();
  double beta = 1.0;
  for (int step = 0; step < 100; ++step) {
    double sum = 1.0, weighted = 0.0;
    for (double d : distances) sum += std::exp(-d * beta);
    for (double d : distances) weighted += d * std::exp(-d * beta) / std::max(sum, 1e-8);
    const double diff = std::log(sum) + beta * weighted - desired;
    if (std::abs(diff) <= 1e-5) break;
    if (diff > 0) {
      lo = beta;
      beta = std::isinf(hi) ? beta * 2.0 : (beta + hi) / 2.0;
    } else {
      hi = beta;
      beta = std::isinf(lo) ? beta / 2.0 : (beta + lo) / 2.0;
    }
  }
  return beta;
}

}  // namespace

std::vector<std::vector<float>> fine_similarities(const ScoreSet& scores,
                                                  const std::vector<Seqlet>& seqlets,
                                                  const Neighbours& neighbours, double min_overlap,
                                                  int threads) {
  const auto n = static_cast<int64_t>(seqlets.size());
  std::vector<std::vector<float>> fwd(seqlets.size()), rev(seqlets.size());
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    fwd[i] = seqlet_snippet(scores, seqlets[i]);
    rev[i] = reverse_snippet(fwd[i]);
  }
  std::vector<std::vector<float>> out(seqlets.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t yl = seqlets[i].length();
    for (int64_t j : neighbours.index[i]) {
      const int64_t xl = seqlets[j].length();
      const int64_t pad = overlap_pad(xl, min_overlap, false);
      const float a = best_jaccard(fwd[j].data(), xl, fwd[i].data(), yl, pad).score;
      const float b = best_jaccard(rev[j].data(), xl, fwd[i].data(), yl, pad).score;
      out[i].push_back(std::max(a, b));
    }
  }
  return out;
}

std::vector<char> correlated_rows(const Neighbours& coarse,
                                  const std::vector<std::vector<float>>& fine, double threshold) {
  std::vector<char> keep(fine.size(), 0);
  for (size_t i = 0; i < fine.size(); ++i) {
    std::vector<double> f, c;
    for (size_t k = 0; k < fine[i].size(); ++k) {
      if (std::abs(fine[i][k]) > 0) f.push_back(fine[i][k]), c.push_back(coarse.similarity[i][k]);
    }
    if (f.size() < 2) continue;
    keep[i] = pearson(ranks(f), ranks(c)) > threshold;  // NaN compares false
  }
  return keep;
}

namespace {

// Each row's (column, distance) entries, both directions of every similarity, sorted by column,
// a pair given in both directions averaged (modisco's (A + A^T) / (C + C^T)).
std::vector<std::vector<std::pair<int64_t, double>>> symmetric_distances(
    const std::vector<std::vector<int64_t>>& neighbours,
    const std::vector<std::vector<float>>& similarity) {
  const auto n = static_cast<int64_t>(neighbours.size());
  std::vector<std::vector<std::pair<int64_t, double>>> rows(neighbours.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < neighbours[i].size(); ++k) {
      const double a = std::max<double>(similarity[i][k], 1e-7);
      const double d = std::max(std::log(1.0 / (0.5 * a) - 1.0), 0.0);
      if (!(d > 0)) continue;  // modisco drops the zeros (similarity >= 1: the seqlet itself)
      rows[i].emplace_back(neighbours[i][k], d);
      rows[neighbours[i][k]].emplace_back(i, d);
    }
  }
  for (auto& row : rows) {
    std::sort(row.begin(), row.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t out = 0;
    for (size_t k = 0; k < row.size();) {
      size_t m = k;
      double sum = 0;
      for (; m < row.size() && row[m].first == row[k].first; ++m) sum += row[m].second;
      row[out++] = {row[k].first, sum / static_cast<double>(m - k)};
      k = m;
    }
    row.resize(out);
  }
  return rows;
}

}  // namespace

WeightedGraph density_adapted_graph(const std::vector<std::vector<int64_t>>& neighbours,
                                    const std::vector<std::vector<float>>& similarity,
                                    double perplexity) {
  const auto n = static_cast<int64_t>(neighbours.size());
  const auto rows = symmetric_distances(neighbours, similarity);
  std::vector<double> beta(neighbours.size()), norm(neighbours.size());
  std::vector<double> d;
  for (int64_t i = 0; i < n; ++i) {
    d.clear();
    for (const auto& entry : rows[i]) d.push_back(entry.second);
    beta[i] = perplexity_beta(d, perplexity);
    norm[i] = 1.0;
    for (double v : d) norm[i] += std::exp(-v / beta[i]);
  }
  // Edges below kNegligible (the conditional probabilities of a row sum to about 1) change no
  // partition's modularity measurably and would only slow Leiden down.
  constexpr double kNegligible = 1e-6;
  WeightedGraph graph{n, {}, {}, {}};
  for (int64_t i = 0; i < n; ++i) {
    graph.from.push_back(i), graph.to.push_back(i), graph.weight.push_back(1.0 / norm[i]);
    for (const auto& [j, dist] : rows[i]) {
      if (j <= i) continue;
      const double w =
          std::sqrt(std::exp(-dist / beta[i]) / norm[i] * std::exp(-dist / beta[j]) / norm[j]);
      if (w < kNegligible) continue;
      graph.from.push_back(i), graph.to.push_back(j), graph.weight.push_back(2.0 * w);
    }
  }
  return graph;
}

}  // namespace strand::motifs
