// Gapped k-mer embeddings and their sparse nearest-neighbour search.
#include "motifs/coarse_neighbors.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

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

// Sums of scores by gapped k-mer key: an open-addressing table (keys are >= 1, 0 marks an empty
// slot), cleared slot by slot after each use. Much faster than sorting or std::unordered_map on
// the thousands of k-mers of a seqlet.
class KmerSums {
 public:
  void add(int64_t key, double score) {
    if (2 * (used_.size() + 1) > keys_.size()) grow();
    size_t at = slot(key);
    while (keys_[at] != 0 && keys_[at] != key) at = (at + 1) & (keys_.size() - 1);
    if (keys_[at] == 0) keys_[at] = key, sums_[at] = 0.0, used_.push_back(at);
    sums_[at] += score;
  }
  /// The (key, sum) entries, in insertion order; the table is emptied.
  std::vector<std::pair<int64_t, double>> take() {
    std::vector<std::pair<int64_t, double>> out;
    out.reserve(used_.size());
    for (size_t at : used_) out.emplace_back(keys_[at], sums_[at]), keys_[at] = 0;
    used_.clear();
    return out;
  }

 private:
  [[nodiscard]] size_t slot(int64_t key) const {
    return static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 20) &
           (keys_.size() - 1);
  }
  void grow() {
    std::vector<std::pair<int64_t, double>> entries = take();
    keys_.assign(std::max<size_t>(4096, 2 * keys_.size()), 0);
    sums_.assign(keys_.size(), 0.0);
    for (const auto& [key, sum] : entries) add(key, sum);
  }
  std::vector<int64_t> keys_;
  std::vector<double> sums_;
  std::vector<size_t> used_;
};

// Adds every gapped k-mer that extends `key` (its first base at `first`) by bases after `last`.
void extend(const std::vector<Base>& bases, size_t first, size_t last, int k, int64_t key,
            double score, KmerSums& out) {
  if (k >= kMinK) out.add(key, score);
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
  thread_local KmerSums sums;
  for (size_t i = 0; i < bases.size(); ++i) {
    extend(bases, i, i, 1, bases[i].base + 1, bases[i].score, sums);
  }
  std::vector<std::pair<int64_t, double>> entries = sums.take();
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

// Posting lists (by column, CSR): for each k-mer column, the row and weight of every embedding
// holding it, 8 bytes an entry; columns are the distinct keys, sorted.
struct Postings {
  std::vector<int64_t> keys;     // (columns)
  std::vector<int64_t> offsets;  // (columns + 1)
  std::vector<int32_t> rows;
  std::vector<float> weights;

  /// The column of `key`, or -1.
  [[nodiscard]] int64_t column(int64_t key) const {
    const auto it = std::lower_bound(keys.begin(), keys.end(), key);
    return it != keys.end() && *it == key ? it - keys.begin() : -1;
  }
};

Postings postings_of(const std::vector<SparseRow>& embeddings) {
  std::vector<std::tuple<int64_t, int32_t, float>> entries;  // (key, row, weight)
  for (size_t r = 0; r < embeddings.size(); ++r) {
    for (const auto& [key, weight] : embeddings[r]) {
      entries.emplace_back(key, static_cast<int32_t>(r), weight);
    }
  }
  std::sort(entries.begin(), entries.end());
  Postings p;
  p.rows.reserve(entries.size());
  p.weights.reserve(entries.size());
  for (const auto& [key, row, weight] : entries) {
    if (p.keys.empty() || p.keys.back() != key) {
      p.keys.push_back(key);
      p.offsets.push_back(static_cast<int64_t>(p.rows.size()));
    }
    p.rows.push_back(row);
    p.weights.push_back(weight);
  }
  p.offsets.push_back(static_cast<int64_t>(p.rows.size()));
  return p;
}

constexpr int64_t kTile = 32;  // query rows whose dot products are gathered together

// The dot products of query rows [first, last) with every embedding of `p`: dots[(r - first) * n
// + j]. A column shared by several rows of the tile is read from memory once (common motif
// k-mers have postings of thousands of rows).
void tile_dots(const std::vector<SparseRow>& queries, int64_t first, int64_t last,
               const Postings& p, int64_t n, std::vector<float>& dots) {
  dots.assign(static_cast<size_t>((last - first) * n), 0.0f);
  std::vector<std::tuple<int64_t, int64_t, float>> entries;  // (column, tile row, weight)
  for (int64_t r = first; r < last; ++r) {
    for (const auto& [key, weight] : queries[r]) {
      if (const int64_t column = p.column(key); column >= 0) {
        entries.emplace_back(column, r - first, weight);
      }
    }
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& [column, row, weight] : entries) {
    float* d = dots.data() + row * n;
    const int32_t* rows = p.rows.data();
    const float* weights = p.weights.data();
    for (int64_t q = p.offsets[column]; q < p.offsets[column + 1]; ++q) {
      d[rows[q]] += weight * weights[q];
    }
  }
}

// The k largest of one row's similarities (itself counted 1 at least), most similar first.
void top_k(std::vector<float>& similarity, int64_t self, int64_t k, std::vector<int64_t>& order,
           std::vector<int64_t>& index, std::vector<float>& values) {
  similarity[self] = std::max(similarity[self], 1.0f);
  std::iota(order.begin(), order.end(), 0);
  const auto by_similarity = [&similarity](int64_t a, int64_t b) {
    return similarity[a] != similarity[b] ? similarity[a] > similarity[b] : a < b;
  };
  std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), by_similarity);
  std::sort(order.begin(), order.begin() + k, by_similarity);
  index.assign(order.begin(), order.begin() + k);
  for (int64_t j : index) values.push_back(similarity[j]);
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
  const int64_t tiles = (n + kTile - 1) / kTile;
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> dot_fwd, dot_rev, row(static_cast<size_t>(n));
    std::vector<int64_t> order(static_cast<size_t>(n));
#pragma omp for schedule(dynamic, 1)
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t first = t * kTile, last = std::min(n, first + kTile);
      tile_dots(forward, first, last, fwd, n, dot_fwd);
      tile_dots(forward, first, last, rev, n, dot_rev);
      for (int64_t i = first; i < last; ++i) {
        const float* f = dot_fwd.data() + (i - first) * n;
        const float* r = dot_rev.data() + (i - first) * n;
        for (int64_t j = 0; j < n; ++j) row[j] = std::max(f[j], r[j]);
        top_k(row, i, k, order, out.index[i], out.similarity[i]);
      }
    }
  }
  return out;
}

}  // namespace strand::motifs
