// --streaming reaches the loader: the peak resident memory of `strand inspect` (which fetches
// every window of every split) grows with intervals x window in memory, and stays flat when
// streaming. Each measurement runs in a forked child, whose VmHWM is its own.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "data/fasta/fasta_reader.h"
#include "support/child_process.h"
#include "test_helpers.h"

namespace strand::cli {
namespace {

using testing::run;
using testing::TempDir;

constexpr int64_t kContigLength = 2'000'000;

// One contig of pseudo-random bases, 60 per line.
std::string random_genome() {
  std::string text = ">chr1\n";
  uint64_t state = 12345;
  for (int64_t i = 0; i < kContigLength; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    text += "ACGT"[(state >> 33) & 3];
    if (i % 60 == 59) text += '\n';
  }
  return text + "\n";
}

// `count` labelled 200 bp intervals spread over the contig (windows may overlap: in memory each
// sample still holds its own window).
std::string intervals(int64_t count) {
  std::string text;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t start = 20'000 + (i * 7919) % (kContigLength - 40'000);
    text += "chr1\t" + std::to_string(start) + "\t" + std::to_string(start + 200) + "\t" +
            std::to_string(i % 2) + "\n";
  }
  return text;
}

// Peak resident growth (KiB) of a child running `strand inspect` over the dataset.
int64_t inspect_peak_growth_kib(const TempDir& dir, const std::string& bed, int64_t window,
                                bool streaming) {
  std::vector<std::string> args = {"inspect",
                                   "--fasta",
                                   dir.str("genome.fa"),
                                   "--intervals",
                                   dir.str(bed),
                                   "--valid-intervals",
                                   dir.str("valid.bed"),
                                   "--window",
                                   std::to_string(window)};
  if (streaming) args.push_back("--streaming");
  return testing::peak_growth_kib(args);
}

TEST_CASE("streaming peak memory stays flat as intervals x window grow while in-memory grows") {
  if (strand::testing::kSanitized)
    STRAND_SKIP("resident memory is not measurable under sanitizers");
  TempDir dir("streaming-memory");
  testing::write_text(dir.path() / "genome.fa", random_genome());
  testing::write_text(dir.path() / "small.bed", intervals(400));
  testing::write_text(dir.path() / "large.bed", intervals(4000));
  testing::write_text(dir.path() / "valid.bed", intervals(20));
  data::FastaReader index_once(dir.str("genome.fa"));  // the .fai, before any measurement

  // small: 400 x 1 kb = 0.4 MB of windows; large: 4000 x 10 kb = 40 MB.
  const int64_t memory_small = inspect_peak_growth_kib(dir, "small.bed", 1000, false);
  const int64_t memory_large = inspect_peak_growth_kib(dir, "large.bed", 10'000, false);
  const int64_t streaming_small = inspect_peak_growth_kib(dir, "small.bed", 1000, true);
  const int64_t streaming_large = inspect_peak_growth_kib(dir, "large.bed", 10'000, true);
  MESSAGE("peak RSS growth (KiB): in-memory " << memory_small << " -> " << memory_large
                                              << ", streaming " << streaming_small << " -> "
                                              << streaming_large);
  CHECK(memory_large - memory_small > 30 * 1024);
  CHECK(streaming_large - streaming_small < 8 * 1024);
}

}  // namespace
}  // namespace strand::cli
