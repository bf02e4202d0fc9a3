// The Altschul-Erickson dinucleotide shuffle (data/dinucleotide_shuffle.h).
//
// A sequence is an Eulerian path through the multigraph whose vertices are letters and whose
// edges are its dinucleotides. A uniformly drawn Eulerian path from the first letter is: a
// uniformly drawn spanning arborescence of "last exits" directed to the final letter (Wilson's
// loop-erased random walks, which weight each tree by its edge multiplicities), then, at each
// vertex, its other exits in a uniformly random order before its last exit.
#include "data/dinucleotide_shuffle.h"

#include <array>
#include <utility>
#include <vector>

#include "data/encoding.h"

namespace strand::data {
namespace {

constexpr int kLetters = kNumBases + 1;  // A C G T N

}  // namespace

void dinucleotide_shuffle(const uint8_t* codes, size_t n, uint8_t* out, CounterRng& rng) {
  if (n < 3) {
    // Nothing to permute: one or two bases have one arrangement with their dinucleotide.
    for (size_t i = 0; i < n; ++i) out[i] = codes[i];
    return;
  }
  // exits[a]: the letters that follow each occurrence of a (the out-edges of vertex a).
  std::array<std::vector<uint8_t>, kLetters> exits;
  for (size_t i = 0; i + 1 < n; ++i) {
    exits[codes[i] < kLetters ? codes[i] : kCodeN].push_back(codes[i + 1] < kLetters ? codes[i + 1]
                                                                                     : kCodeN);
  }
  const uint8_t first = codes[0] < kLetters ? codes[0] : kCodeN;
  const uint8_t last = codes[n - 1] < kLetters ? codes[n - 1] : kCodeN;

  // Wilson's algorithm: a random tree of last exits, each vertex with exits pointing towards
  // `last`. next_exit[v] indexes v's exit list; in_tree marks vertices already joined.
  std::array<bool, kLetters> in_tree{};
  std::array<size_t, kLetters> next_exit{};
  in_tree[last] = true;
  for (int start = 0; start < kLetters; ++start) {
    if (in_tree[start] || exits[start].empty()) continue;
    // Loop-erased walk: overwriting next_exit erases loops; it ends on the tree because every
    // vertex with exits reaches `last` (the sequence is a path ending there).
    int vertex = start;
    while (!in_tree[vertex]) {
      next_exit[vertex] = static_cast<size_t>(rng.below(exits[vertex].size()));
      vertex = exits[vertex][next_exit[vertex]];
    }
    for (vertex = start; !in_tree[vertex]; vertex = exits[vertex][next_exit[vertex]]) {
      in_tree[vertex] = true;
    }
  }
  // Each vertex's exits: the tree's last exit moved to the end, the others shuffled before it
  // (Fisher-Yates).
  for (int vertex = 0; vertex < kLetters; ++vertex) {
    std::vector<uint8_t>& list = exits[vertex];
    if (list.empty()) continue;
    if (vertex != last) std::swap(list[next_exit[vertex]], list.back());
    const size_t shuffled = vertex == last ? list.size() : list.size() - 1;
    for (size_t i = shuffled; i > 1; --i) {
      std::swap(list[i - 1], list[static_cast<size_t>(rng.below(i))]);
    }
  }
  // The Eulerian path from the first letter, taking each vertex's exits in order.
  std::array<size_t, kLetters> taken{};
  uint8_t vertex = first;
  out[0] = vertex;
  for (size_t i = 1; i < n; ++i) {
    vertex = exits[vertex][taken[vertex]++];
    out[i] = vertex;
  }
}

std::basic_string<uint8_t> dinucleotide_shuffle(std::basic_string_view<uint8_t> codes,
                                                uint64_t key) {
  std::basic_string<uint8_t> out(codes.size(), 0);
  CounterRng rng(key);
  dinucleotide_shuffle(codes.data(), codes.size(), out.data(), rng);
  return out;
}

}  // namespace strand::data
