// SimilarPatternsCollapser: pairwise similarity and cross contamination, grouped merges.
#include "motifs/collapse.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include "motifs/jaccard.h"

namespace strand::motifs {
namespace {

// (aligner similarity, AUROC) of pattern j placed on pattern i.
using PairStats = std::pair<double, double>;

std::vector<Seqlet> subsample(const std::vector<Seqlet>& seqlets, int64_t cap) {
  if (static_cast<int64_t>(seqlets.size()) <= cap) return seqlets;
  std::vector<Seqlet> copy = seqlets;
  std::mt19937_64 rng(1234);
  std::shuffle(copy.begin(), copy.end(), rng);
  copy.resize(static_cast<size_t>(cap));
  return copy;
}

PairStats pair_stats(const ScoreSet& scores, const Pattern& a, const Pattern& b,
                     const CollapseOptions& o) {
  const Placement at = place(a, b.mean(Track::kHypothetical), b.mean(Track::kContrib),
                             AlignMetric::kPearson, o.min_overlap);
  std::vector<std::vector<float>> rows_a, rows_b;
  for (const Seqlet& s : subsample(a.seqlets(), o.max_seqlets_subsample)) {
    rows_a.push_back(seqlet_snippet(scores, s));
  }
  for (Seqlet s : subsample(b.seqlets(), o.max_seqlets_subsample)) {
    if (at.revcomp) s = flipped(s);
    const int64_t shift = s.revcomp ? at.offset : -at.offset;
    s.start += shift, s.end += shift;
    if (s.start >= 0 && s.end < scores.length && s.length() == a.length()) {
      rows_b.push_back(seqlet_snippet(scores, s));
    }
  }
  if (rows_b.empty()) return {at.score, 0.5};
  const auto size = static_cast<int64_t>(rows_a.front().size());
  std::vector<double> within, between;
  for (const auto& x : rows_a) {
    for (const auto& y : rows_a) within.push_back(flat_jaccard(y.data(), x.data(), size));
    for (const auto& y : rows_b) between.push_back(flat_jaccard(y.data(), x.data(), size));
  }
  return {at.score, roc_auc(std::move(between), std::move(within))};
}

// Whether merging i's group with j's keeps every pair of the union clear of the dealbreakers.
bool no_dealbreaker(const std::set<size_t>& group, const std::vector<std::vector<double>>& sim,
                    const std::vector<std::vector<double>>& contamination,
                    const CollapseOptions& o) {
  for (size_t m1 : group) {
    for (size_t m2 : group) {
      if (m1 >= m2) continue;
      const double cc = 0.5 * (contamination[m1][m2] + contamination[m2][m1]);
      for (const auto& [cc_max, sim_max] : o.dealbreaker) {
        if (cc <= cc_max && sim[m1][m2] <= sim_max) return false;
      }
    }
  }
  return true;
}

// The pairs to merge this round, most similar first, as modisco groups them.
std::vector<std::pair<size_t, size_t>> merges(const std::vector<std::vector<PairStats>>& stats,
                                              const CollapseOptions& o) {
  const size_t n = stats.size();
  std::vector<std::vector<double>> sim(n, std::vector<double>(n)), cc = sim;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      sim[i][j] = 0.5 * (stats[i][j].first + stats[j][i].first);
      cc[i][j] = 2 * (1 - std::max(stats[i][j].second, 0.5));
    }
  }
  std::vector<std::tuple<size_t, size_t, double>> pairs;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) pairs.emplace_back(i, j, sim[i][j]);
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return std::get<2>(a) > std::get<2>(b); });
  std::vector<std::set<size_t>> partners(n);
  for (size_t i = 0; i < n; ++i) partners[i] = {i};
  std::vector<std::pair<size_t, size_t>> out;
  for (const auto& [i, j, s] : pairs) {
    const double contamination = std::min(cc[i][j], cc[j][i]);
    bool wanted = false;
    for (const auto& [cc_min, sim_min] : o.merge) wanted |= contamination >= cc_min && s >= sim_min;
    if (!wanted) continue;
    std::set<size_t> group = partners[i];
    group.insert(partners[j].begin(), partners[j].end());
    if (!no_dealbreaker(group, sim, cc, o)) continue;
    out.emplace_back(i, j);
    for (size_t m : group) partners[m] = group;
  }
  return out;
}

}  // namespace

double roc_auc(std::vector<double> negative, std::vector<double> positive) {
  if (negative.empty() || positive.empty()) return 0.5;
  std::sort(negative.begin(), negative.end());
  double wins = 0;
  for (double p : positive) {
    const auto below = std::lower_bound(negative.begin(), negative.end(), p) - negative.begin();
    const auto upto = std::upper_bound(negative.begin(), negative.end(), p) - negative.begin();
    wins += static_cast<double>(below) + 0.5 * static_cast<double>(upto - below);
  }
  return wins / (static_cast<double>(negative.size()) * static_cast<double>(positive.size()));
}

std::vector<Pattern> collapse_patterns(const ScoreSet& scores, std::vector<Pattern> patterns,
                                       const std::array<double, 4>& background,
                                       const CollapseOptions& o) {
  for (bool merged = true; merged && patterns.size() > 1;) {
    const size_t n = patterns.size();
    std::vector<std::vector<PairStats>> stats(n, std::vector<PairStats>(n, {1.0, 0.5}));
#pragma omp parallel for num_threads(o.threads) schedule(dynamic, 1) collapse(2)
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (i != j) stats[i][j] = pair_stats(scores, patterns[i], patterns[j], o);
      }
    }
    // Each pattern's current stand-in: merged pairs point at one new pattern.
    std::vector<size_t> owner(n);
    std::iota(owner.begin(), owner.end(), 0);
    std::vector<std::optional<Pattern>> built(patterns.begin(), patterns.end());
    merged = false;
    for (const auto& [i0, j0] : merges(stats, o)) {
      const size_t i = owner[i0], j = owner[j0];
      if (i == j) continue;
      const bool i_bigger = built[i]->seqlets().size() >= built[j]->seqlets().size();
      const size_t parent = i_bigger ? i : j, child = i_bigger ? j : i;
      Pattern joined = merge_seqlets(scores, *built[parent], built[child]->seqlets(),
                                     AlignMetric::kPearson, o.min_overlap);
      std::optional<Pattern> polished = polish(scores, joined, o.flank, o.window, background);
      if (!polished) continue;
      built[parent] = std::move(polished);
      built[child].reset();
      for (size_t& k : owner) k = (k == child) ? parent : k;
      merged = true;
    }
    patterns.clear();
    for (auto& p : built) {
      if (p) patterns.push_back(std::move(*p));
    }
    std::stable_sort(patterns.begin(), patterns.end(), [](const Pattern& a, const Pattern& b) {
      return a.seqlets().size() > b.seqlets().size();
    });
  }
  return patterns;
}

}  // namespace strand::motifs
