// The discovery pipeline: seqlets, two clustering rounds, merging, filtering.
#include "motifs/discover.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "motifs/affinity_graph.h"
#include "motifs/coarse_neighbors.h"
#include "motifs/leiden.h"
#include "motifs/subpatterns.h"

namespace strand::motifs {
namespace {

void say(const std::function<void(const std::string&)>& log, const std::string& line) {
  if (log) log(line);
}

// Seconds since `start`, and `start` moved to now.
double lap(std::chrono::steady_clock::time_point& start) {
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - start).count();
  start = now;
  return seconds;
}

double total_abs_contrib(const ScoreSet& scores, const Seqlet& seqlet) {
  std::vector<float> values(static_cast<size_t>(seqlet.length() * 4));
  read_seqlet(scores, seqlet, Track::kContrib, values.data());
  double sum = 0;
  for (float v : values) sum += std::abs(v);
  return sum;
}

std::array<double, 4> base_frequencies(const ScoreSet& scores, const std::vector<Seqlet>& seqlets) {
  std::array<double, 4> freq{0, 0, 0, 0};
  double total = 0;
  std::vector<float> values;
  for (const Seqlet& s : seqlets) {
    values.resize(static_cast<size_t>(s.length() * 4));
    read_seqlet(scores, s, Track::kOneHot, values.data());
    for (size_t i = 0; i < values.size(); ++i) freq[i % 4] += values[i];
    total += static_cast<double>(s.length());
  }
  for (double& f : freq) f = total > 0 ? f / total : 0.25;
  return freq;
}

// Rows kept by the correlation filter, with their neighbours renumbered and the dropped ones
// removed.
void keep_rows(std::vector<Seqlet>& seqlets, Neighbours& coarse,
               std::vector<std::vector<float>>& fine, const std::vector<char>& keep) {
  std::vector<int64_t> renumber(seqlets.size(), -1);
  int64_t next = 0;
  for (size_t i = 0; i < seqlets.size(); ++i) {
    if (keep[i]) renumber[i] = next++;
  }
  std::vector<Seqlet> kept_seqlets;
  std::vector<std::vector<int64_t>> kept_index;
  std::vector<std::vector<float>> kept_fine;
  for (size_t i = 0; i < seqlets.size(); ++i) {
    if (!keep[i]) continue;
    kept_seqlets.push_back(seqlets[i]);
    kept_index.emplace_back();
    kept_fine.emplace_back();
    for (size_t k = 0; k < coarse.index[i].size(); ++k) {
      const int64_t j = renumber[coarse.index[i][k]];
      if (j < 0) continue;
      kept_index.back().push_back(j);
      kept_fine.back().push_back(fine[i][k]);
    }
  }
  seqlets = std::move(kept_seqlets);
  coarse.index = std::move(kept_index);
  fine = std::move(kept_fine);
}

// One pattern per cluster: its seqlets merged from the strongest, polished, kept when its
// contributions have the sign of the metacluster.
std::vector<Pattern> cluster_patterns(const ScoreSet& scores, const std::vector<Seqlet>& seqlets,
                                      const std::vector<int64_t>& membership, int sign,
                                      const std::array<double, 4>& background,
                                      const DiscoverOptions& o) {
  std::map<int64_t, std::vector<Seqlet>> clusters;
  for (size_t i = 0; i < seqlets.size(); ++i) clusters[membership[i]].push_back(seqlets[i]);
  std::vector<std::vector<Seqlet>> groups;
  for (auto& [id, members] : clusters) groups.push_back(std::move(members));
  std::vector<std::optional<Pattern>> built(groups.size());
#pragma omp parallel for num_threads(o.threads) schedule(dynamic, 1)
  for (size_t c = 0; c < groups.size(); ++c) {
    const std::vector<Seqlet>& members = groups[c];  // already strongest first
    Pattern pattern(scores, {members.front()});
    pattern = merge_seqlets(scores, std::move(pattern),
                            std::vector<Seqlet>(members.begin() + 1, members.end()),
                            AlignMetric::kJaccard, o.min_overlap);
    std::optional<Pattern> polished = polish(scores, pattern, o.flank, o.trim_window, background);
    if (!polished) continue;
    double total = 0;
    for (double v : polished->mean(Track::kContrib)) total += v;
    if ((total > 0 ? 1 : (total < 0 ? -1 : 0)) == sign) built[c] = std::move(polished);
  }
  std::vector<Pattern> out;
  for (auto& p : built) {
    if (p) out.push_back(std::move(*p));
  }
  return out;
}

// One clustering round over `seqlets` (sorted strongest first).
std::vector<Pattern> clustering_round(const ScoreSet& scores, std::vector<Seqlet> seqlets, int sign,
                                      bool filter, const std::array<double, 4>& bg,
                                      const DiscoverOptions& o,
                                      const std::function<void(const std::string&)>& log) {
  auto clock = std::chrono::steady_clock::now();
  const size_t given = seqlets.size();
  Neighbours coarse = coarse_neighbours(scores, seqlets, o.neighbours + 1, sign, o.threads);
  const double t_coarse = lap(clock);
  std::vector<std::vector<float>> fine =
      fine_similarities(scores, seqlets, coarse, o.min_overlap, o.threads);
  const double t_fine = lap(clock);
  if (filter) {
    keep_rows(seqlets, coarse, fine, correlated_rows(coarse, fine, o.correlation_threshold));
  }
  const WeightedGraph graph = density_adapted_graph(coarse.index, fine, o.perplexity);
  const double t_graph = lap(clock);
  const std::vector<int64_t> membership = leiden_clusters(graph, o.leiden_runs, o.threads);
  const double t_leiden = lap(clock);
  const int64_t clusters =
      membership.empty() ? 0 : *std::max_element(membership.begin(), membership.end()) + 1;
  std::vector<Pattern> patterns = cluster_patterns(scores, seqlets, membership, sign, bg, o);
  say(log, fmt::format("  {} seqlets ({} kept), {} clusters, {} patterns; seconds: coarse {:.1f}, "
                       "fine {:.1f}, graph {:.1f}, Leiden {:.1f}, patterns {:.1f}",
                       given, seqlets.size(), clusters, patterns.size(), t_coarse, t_fine, t_graph,
                       t_leiden, lap(clock)));
  return patterns;
}

// Whether a pattern has enough seqlets and a window of enough information.
bool passes(const Pattern& p, const std::array<double, 4>& bg, const DiscoverOptions& o) {
  if (static_cast<int64_t>(p.seqlets().size()) < o.min_seqlets) return false;
  const std::vector<double> ic = position_information(p.mean(Track::kOneHot), bg);
  const auto w = std::min<int64_t>(o.ic_window, static_cast<int64_t>(ic.size()));
  double best = -1e300, sum = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(ic.size()); ++i) {
    sum += ic[i];
    if (i >= w) sum -= ic[i - w];
    if (i >= w - 1) best = std::max(best, sum);
  }
  return best >= o.min_ic_in_window;
}

}  // namespace

std::vector<Pattern> seqlets_to_patterns(const ScoreSet& scores, std::vector<Seqlet> seqlets,
                                         int sign, const DiscoverOptions& o,
                                         const std::function<void(const std::string&)>& log) {
  const std::array<double, 4> bg = base_frequencies(scores, seqlets);
  std::vector<Pattern> patterns;
  for (int round = 0; round < 2 && !seqlets.empty(); ++round) {
    std::vector<double> strength;
    for (const Seqlet& s : seqlets) strength.push_back(total_abs_contrib(scores, s));
    std::vector<size_t> order(seqlets.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return strength[a] > strength[b]; });
    std::vector<Seqlet> sorted;
    for (size_t i : order) sorted.push_back(seqlets[i]);
    patterns = clustering_round(scores, sorted, sign, round == 0, bg, o, log);
    // The next round clusters the patterns' seqlets, each once.
    std::set<std::array<int64_t, 3>> seen;
    seqlets.clear();
    for (const Pattern& p : patterns) {
      for (const Seqlet& s : p.seqlets()) {
        if (seen.insert({s.example, s.start, s.end}).second) seqlets.push_back(s);
      }
    }
  }
  CollapseOptions collapse = o.collapse;
  collapse.threads = o.threads;
  auto clock = std::chrono::steady_clock::now();
  const size_t before = patterns.size();
  patterns = collapse_patterns(scores, std::move(patterns), bg, collapse);
  say(log,
      fmt::format("  merged {} patterns into {} ({:.1f} s)", before, patterns.size(), lap(clock)));
  std::vector<Pattern> out;
  for (Pattern& p : patterns) {
    if (passes(p, bg, o)) out.push_back(std::move(p));
  }
  return out;
}

Discovery discover(const ScoreSet& scores, const DiscoverOptions& o,
                   const std::function<void(const std::string&)>& log) {
  Discovery d;
  SeqletOptions seqlet_options = o.seqlets;
  seqlet_options.threads = o.threads;
  d.calls = call_seqlets(scores, seqlet_options);
  say(log, fmt::format("seqlets: {} positive, {} negative (window thresholds {:.4g} / {:.4g})",
                       d.calls.positive.size(), d.calls.negative.size(), d.calls.positive_threshold,
                       d.calls.negative_threshold));
  std::vector<Seqlet> all = d.calls.positive;
  all.insert(all.end(), d.calls.negative.begin(), d.calls.negative.end());
  d.background = base_frequencies(scores, all);
  for (Metacluster* m : {&d.positive, &d.negative}) {
    const std::vector<Seqlet>& seqlets = m->sign > 0 ? d.calls.positive : d.calls.negative;
    if (static_cast<int64_t>(seqlets.size()) <= o.min_metacluster_size) continue;
    say(log, fmt::format("{} metacluster:", m->sign > 0 ? "positive" : "negative"));
    m->patterns = seqlets_to_patterns(scores, seqlets, m->sign, o, log);
    if (!o.subpatterns) continue;
    auto clock = std::chrono::steady_clock::now();
    for (const Pattern& p : m->patterns) {
      m->subpatterns.push_back(
          subpatterns(scores, p, o.subcluster_perplexity, o.leiden_runs, o.threads));
    }
    say(log, fmt::format("  subpatterns ({:.1f} s)", lap(clock)));
  }
  return d;
}

}  // namespace strand::motifs
