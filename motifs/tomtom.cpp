// TOMTOM-like motif matching and the MEME reader.
#include "motifs/tomtom.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "motifs/motif_similarity.h"

namespace strand::motifs {
namespace {

constexpr int kBins = 100;  // a column's Pearson in [-1, 1] quantised to 0..kBins

int quantise(double r) {
  return static_cast<int>(std::lround((std::clamp(r, -1.0, 1.0) + 1.0) / 2.0 * kBins));
}

// survival[a][b - a - 1][s]: P(sum of query columns a..b-1's null scores >= s).
using Survival = std::vector<std::vector<std::vector<double>>>;

Survival null_survival(const std::vector<double>& query, const std::vector<Motif>& database) {
  const auto w = static_cast<int64_t>(query.size() / 4);
  std::vector<std::vector<double>> column(static_cast<size_t>(w),
                                          std::vector<double>(kBins + 1, 0.0));
  double total = 0;
  for (const Motif& m : database) {
    for (int64_t t = 0; t < m.width(); ++t) {
      for (int64_t i = 0; i < w; ++i) {
        column[i][quantise(column_pearson(query.data() + i * 4, m.ppm.data() + t * 4))] += 1;
      }
      total += 1;
    }
  }
  for (auto& h : column) {
    for (double& v : h) v /= std::max(total, 1.0);
  }
  Survival out(static_cast<size_t>(w));
  for (int64_t a = 0; a < w; ++a) {
    std::vector<double> dist = {1.0};
    for (int64_t b = a; b < w; ++b) {
      std::vector<double> next(dist.size() + kBins, 0.0);
      for (size_t s = 0; s < dist.size(); ++s) {
        if (dist[s] == 0) continue;
        for (int k = 0; k <= kBins; ++k) next[s + k] += dist[s] * column[b][k];
      }
      dist = std::move(next);
      std::vector<double> survival(dist.size() + 1, 0.0);
      for (size_t s = dist.size(); s-- > 0;) survival[s] = survival[s + 1] + dist[s];
      out[a].push_back(std::move(survival));
    }
  }
  return out;
}

// The best alignment of one target: its corrected p-value, offset and strand.
MotifMatch match_target(const std::vector<double>& query, const Motif& target,
                        const Survival& survival) {
  const auto w = static_cast<int64_t>(query.size() / 4);
  const int64_t need = std::min<int64_t>(5, std::min(w, target.width()));
  MotifMatch best{target.name, 1.0, 1.0, 0, false};
  int64_t tried = 0;
  for (bool rc : {false, true}) {
    const std::vector<double> t = rc ? reverse_complement(target.ppm) : target.ppm;
    for (int64_t offset = -target.width() + 1; offset < w; ++offset) {
      const int64_t a = std::max<int64_t>(0, offset), b = std::min(w, offset + target.width());
      if (b - a < need) continue;
      ++tried;
      int64_t score = 0;
      for (int64_t i = a; i < b; ++i) {
        score += quantise(column_pearson(query.data() + i * 4, t.data() + (i - offset) * 4));
      }
      const std::vector<double>& sf = survival[a][b - a - 1];
      const double p = sf[std::min<size_t>(static_cast<size_t>(score), sf.size() - 1)];
      if (p < best.p_value) best = {target.name, p, 1.0, offset, rc};
    }
  }
  best.p_value = tried > 0 ? -std::expm1(static_cast<double>(tried) *
                                         std::log1p(-std::min(best.p_value, 1.0 - 1e-16)))
                           : 1.0;
  return best;
}

}  // namespace

std::vector<MotifMatch> tomtom(const std::vector<double>& query, const std::vector<Motif>& database,
                               int64_t top) {
  if (query.empty() || database.empty()) return {};
  const Survival survival = null_survival(query, database);
  std::vector<MotifMatch> matches;
  for (const Motif& m : database) matches.push_back(match_target(query, m, survival));
  std::vector<size_t> order(matches.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return matches[x].p_value < matches[y].p_value; });
  // Benjamini-Hochberg over the database's motifs.
  double running = 1.0;
  const auto n = static_cast<double>(matches.size());
  for (size_t r = order.size(); r-- > 0;) {
    running = std::min(running, matches[order[r]].p_value * n / static_cast<double>(r + 1));
    matches[order[r]].q_value = std::min(running, 1.0);
  }
  std::vector<MotifMatch> out;
  for (size_t r = 0; r < order.size() && static_cast<int64_t>(r) < top; ++r) {
    out.push_back(matches[order[r]]);
  }
  return out;
}

std::vector<Motif> read_meme(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot open '{}'", path.string()));
  std::vector<Motif> motifs;
  std::string line;
  int64_t line_number = 0, rows_left = 0;
  while (std::getline(in, line)) {
    ++line_number;
    std::istringstream words(line);
    std::string first;
    if (!(words >> first)) continue;
    if (first == "MOTIF") {
      motifs.push_back({});
      words >> motifs.back().name;
    } else if (first == "letter-probability" && !motifs.empty()) {
      const size_t at = line.find("w=");
      rows_left = at == std::string::npos ? -1 : std::stoll(line.substr(at + 2));
    } else if (rows_left != 0 && !motifs.empty()) {
      std::istringstream values(line);
      double v[4];
      if (!(values >> v[0] >> v[1] >> v[2] >> v[3])) {
        if (rows_left < 0) {
          rows_left = 0;
          continue;
        }
        throw std::runtime_error(
            fmt::format("'{}' line {}: expected 4 letter probabilities of "
                        "motif '{}'",
                        path.string(), line_number, motifs.back().name));
      }
      motifs.back().ppm.insert(motifs.back().ppm.end(), v, v + 4);
      if (rows_left > 0) --rows_left;
    }
  }
  std::erase_if(motifs, [](const Motif& m) { return m.ppm.empty(); });
  if (motifs.empty()) {
    throw std::runtime_error(
        fmt::format("'{}': no motif (expected MEME format: 'MOTIF name' "
                    "then a letter-probability matrix)",
                    path.string()));
  }
  return motifs;
}

}  // namespace strand::motifs
