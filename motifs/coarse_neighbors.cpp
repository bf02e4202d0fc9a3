// Gapped k-mer embeddings and their sparse nearest-neighbour search.
#include "motifs/coarse_neighbors.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace strand::motifs {
namespace {

constexpr int64_t kTopPositions = 20;
constexpr int kMinK = 4, kMaxK = 6;
constexpr int64_t kMaxSpan = 15;
constexpr size_t kMaxEntries = 500;

// One strongest position: where, which base, its contribution.
struct Base {
  int64_t position;
  int base;
  double score;
};

using SparseRow = std::vector<std::pair<int64_t, float>>;  // (gapped k-mer key, weight)

// The kTopPositions strongest positions of a seqlet (as read on its strand), by position.
std::vector<Base> strongest_bases(const ScoreSet& scores, const Seqlet& seqlet, int sign) {
  const int64_t length = seqlet.length();
  std::vector<float> bases(static_cast<size_t>(length * 4)), contrib(bases.size());
  read_seqlet(scores, seqlet, Track::kOneHot, bases.data());
  read_seqlet(scores, seqlet, Track::kContrib, contrib.data());
  std::vector<Base> all;
  for (int64_t p = 0; p < length; ++p) {
    const float* b = bases.data() + p * 4;
    const float* c = contrib.data() + p * 4;
    const int base = static_cast<int>(std::max_element(b, b + 4) - b);
    all.push_back({p, base, sign * (double(c[0]) + c[1] + c[2] + c[3])});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Base& a, const Base& b) { return a.score > b.score; });
  all.resize(static_cast<size_t>(std::min<int64_t>(kTopPositions, length)));
  std::sort(all.begin(), all.end(),
            [](const Base& a, const Base& b) { return a.position < b.position; });
  return all;
}

// Adds every gapped k-mer that extends `key` (its first base at `first`) by bases after `last`.
void extend(const std::vector<Base>& bases, size_t first, size_t last, int k, int64_t key,
            double score, std::vector<std::pair<int64_t, double>>& out) {
  if (k >= kMinK) out.emplace_back(key, score);
  if (k == kMaxK) return;
  for (size_t next = last + 1; next < bases.size(); ++next) {
    const int64_t span = bases[next].position - bases[first].position;
    if (span >= kMaxSpan) break;
    int64_t digit = bases[next].base + 1;
    for (int64_t s = 0; s < span; ++s) digit *= 5;
    extend(bases, first, next, k + 1, key + digit, score + bases[next].score, out);
  }
}

// The seqlet's kMaxEntries strongest gapped k-mers, L2-normalised, sorted by key.
SparseRow embedding(const std::vector<Base>& bases) {
  thread_local std::vector<std::pair<int64_t, double>> found;
  found.clear();
  for (size_t i = 0; i < bases.size(); ++i) {
    extend(bases, i, i, 1, bases[i].base + 1, bases[i].score, found);
  }
  // The same gapped k-mer at several places: one entry, its scores summed.
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int64_t, double>> entries;
  for (const auto& [key, score] : found) {
    if (!entries.empty() && entries.back().first == key) {
      entries.back().second += score;
    } else {
      entries.emplace_back(key, score);
    }
  }
  const auto stronger = [](const auto& a, const auto& b) {
    return std::abs(a.second) != std::abs(b.second) ? std::abs(a.second) > std::abs(b.second)
                                                    : a.first < b.first;
  };
  if (entries.size() > kMaxEntries) {
    std::nth_element(entries.begin(), entries.begin() + kMaxEntries - 1, entries.end(), stronger);
    entries.resize(kMaxEntries);
  }
  double norm = 0;
  for (const auto& e : entries) norm += e.second * e.second;
  norm = norm > 0 ? std::sqrt(norm) : 1.0;
  SparseRow row;
  for (const auto& e : entries) row.emplace_back(e.first, static_cast<float>(e.second / norm));
  std::sort(row.begin(), row.end());
  return row;
}

// Posting lists: for each k-mer column, the (row, weight) of every embedding holding it.
struct Postings {
  std::unordered_map<int64_t, int64_t> column;
  std::vector<std::vector<std::pair<int64_t, float>>> rows;
};

Postings postings_of(const std::vector<SparseRow>& embeddings) {
  Postings p;
  for (size_t r = 0; r < embeddings.size(); ++r) {
    for (const auto& [key, weight] : embeddings[r]) {
      auto [it, added] = p.column.emplace(key, static_cast<int64_t>(p.rows.size()));
      if (added) p.rows.emplace_back();
      p.rows[it->second].emplace_back(static_cast<int64_t>(r), weight);
    }
  }
  return p;
}

}  // namespace

Neighbours coarse_neighbours(const ScoreSet& scores, const std::vector<Seqlet>& seqlets, int64_t k,
                             int sign, int threads) {
  const auto n = static_cast<int64_t>(seqlets.size());
  std::vector<SparseRow> forward(seqlets.size()), reverse(seqlets.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
  for (int64_t i = 0; i < n; ++i) {
    forward[i] = embedding(strongest_bases(scores, seqlets[i], sign));
    reverse[i] = embedding(strongest_bases(scores, flipped(seqlets[i]), sign));
  }
  const Postings fwd = postings_of(forward), rev = postings_of(reverse);
  k = std::min(k, n);
  Neighbours out{std::vector<std::vector<int64_t>>(seqlets.size()),
                 std::vector<std::vector<float>>(seqlets.size())};
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> dot_fwd(static_cast<size_t>(n)), dot_rev(static_cast<size_t>(n));
    std::vector<int64_t> order(static_cast<size_t>(n));
#pragma omp for schedule(dynamic, 16)
    for (int64_t i = 0; i < n; ++i) {
      std::fill(dot_fwd.begin(), dot_fwd.end(), 0.0f);
      std::fill(dot_rev.begin(), dot_rev.end(), 0.0f);
      for (const auto& [key, weight] : forward[i]) {
        if (auto it = fwd.column.find(key); it != fwd.column.end()) {
          for (const auto& [j, w] : fwd.rows[it->second]) dot_fwd[j] += weight * w;
        }
        if (auto it = rev.column.find(key); it != rev.column.end()) {
          for (const auto& [j, w] : rev.rows[it->second]) dot_rev[j] += weight * w;
        }
      }
      for (int64_t j = 0; j < n; ++j) dot_fwd[j] = std::max(dot_fwd[j], dot_rev[j]);
      dot_fwd[i] = std::max(dot_fwd[i], 1.0f);  // a seqlet is its own nearest neighbour
      std::iota(order.begin(), order.end(), 0);
      const auto by_similarity = [&dot_fwd](int64_t a, int64_t b) {
        return dot_fwd[a] != dot_fwd[b] ? dot_fwd[a] > dot_fwd[b] : a < b;
      };
      std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), by_similarity);
      std::sort(order.begin(), order.begin() + k, by_similarity);
      out.index[i].assign(order.begin(), order.begin() + k);
      for (int64_t j : out.index[i]) out.similarity[i].push_back(dot_fwd[j]);
    }
  }
  return out;
}

}  // namespace strand::motifs
