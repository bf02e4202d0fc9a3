// The dinucleotide shuffle keeps every dinucleotide count and draws uniformly among the
// sequences that share them.
#include "data/dinucleotide_shuffle.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "data/encoding.h"

namespace strand::data {
namespace {

using Codes = std::basic_string<uint8_t>;

std::array<int, 25> dinucleotide_counts(const Codes& codes) {
  std::array<int, 25> counts{};
  for (size_t i = 0; i + 1 < codes.size(); ++i) ++counts[codes[i] * 5 + codes[i + 1]];
  return counts;
}

Codes random_codes(size_t n, uint64_t key, bool with_n) {
  CounterRng rng(key);
  Codes codes(n, 0);
  for (auto& code : codes) code = static_cast<uint8_t>(rng.below(with_n ? 5 : 4));
  return codes;
}

TEST_CASE("dinucleotide shuffle: keeps the dinucleotide counts and the first and last base") {
  for (uint64_t key = 0; key < 50; ++key) {
    const Codes codes = random_codes(3 + key * 37, key, /*with_n=*/key % 3 == 0);
    const Codes shuffled = dinucleotide_shuffle(codes, key + 1000);
    REQUIRE(shuffled.size() == codes.size());
    CHECK(dinucleotide_counts(shuffled) == dinucleotide_counts(codes));
    CHECK(shuffled.front() == codes.front());
    CHECK(shuffled.back() == codes.back());
  }
}

TEST_CASE("dinucleotide shuffle: one key gives one shuffle, other keys others") {
  const Codes codes = encode("ACGTTGCAAGCTTAGCCGATCGATTACGGCATGCA");
  CHECK(dinucleotide_shuffle(codes, 7) == dinucleotide_shuffle(codes, 7));
  int differ = 0;
  for (uint64_t key = 0; key < 20; ++key) differ += dinucleotide_shuffle(codes, key) != codes;
  CHECK(differ >= 18);
  // Too short to permute: returned as they are.
  CHECK(dinucleotide_shuffle(encode("AG"), 1) == encode("AG"));
  CHECK(dinucleotide_shuffle(Codes{}, 1).empty());
}

TEST_CASE("dinucleotide shuffle: uniform over the sequences with the same dinucleotides") {
  const Codes codes = encode("AACAGATCAT");
  // Every arrangement with the same first base and dinucleotide counts, by brute force.
  Codes letters = codes.substr(1);
  std::sort(letters.begin(), letters.end());
  std::map<Codes, int> drawn;
  do {
    const Codes candidate = codes.substr(0, 1) + letters;
    if (dinucleotide_counts(candidate) == dinucleotide_counts(codes)) drawn[candidate] = 0;
  } while (std::next_permutation(letters.begin(), letters.end()));
  REQUIRE(drawn.size() > 10);
  const int draws = 400 * static_cast<int>(drawn.size());
  for (int key = 0; key < draws; ++key) {
    const Codes shuffled = dinucleotide_shuffle(codes, static_cast<uint64_t>(key));
    REQUIRE(drawn.count(shuffled) == 1);
    ++drawn[shuffled];
  }
  // 400 expected per arrangement (sd 20): every count within 5 sd.
  for (const auto& [sequence, count] : drawn) {
    INFO(decode(sequence.data(), sequence.size()));
    CHECK(count > 300);
    CHECK(count < 500);
  }
}

}  // namespace
}  // namespace strand::data
