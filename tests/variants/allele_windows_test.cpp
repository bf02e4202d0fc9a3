// Allele windows against an independent construction in Python (chrombpnet's rule, pysam and
// pyfaidx: scripts/make_variant_fixtures.py): SNVs, MNVs, insertions, deletions, a complex
// substitution and variants at the contig ends, for windows of 200, 201 and 2114 bases, byte
// for byte, cut the way the scorer cuts them (AlleleWindowSource in a loader worker's place).
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "data/encoding.h"
#include "data/text_fields.h"
#include "variants/allele_window_source.h"
#include "variants/allele_windows.h"
#include "variants_test_support.h"

namespace strand::variants {
namespace {

using testing::TempDir;

struct ExpectedWindow {
  std::string chrom;
  int64_t position = 0;
  std::string ref, alt;
  int64_t length = 0;
  std::string what, ref_window, alt_window;
};

std::vector<ExpectedWindow> read_fixture() {
  data::LineReader in(strand::testing::source_dir() +
                      "/tests/variants/fixtures/allele_windows.tsv");
  std::vector<ExpectedWindow> rows;
  std::string line;
  while (in.next(line)) {
    if (line.starts_with('#')) continue;
    const std::vector<std::string_view> f = data::split_tabs(line);
    REQUIRE(f.size() == 8);
    rows.push_back({std::string(f[0]), *data::parse_int(f[1]), std::string(f[2]), std::string(f[3]),
                    *data::parse_int(f[4]), std::string(f[5]), std::string(f[6]),
                    std::string(f[7])});
  }
  return rows;
}

TEST_CASE("allele windows: every kind of variant equals chrombpnet's windows built in Python") {
  TempDir dir("windows");
  const std::string genome = dir.str("yeast_small.fa.gz");
  std::filesystem::copy_file(
      strand::testing::source_dir() + "/tests/data/fixtures/genomes/yeast_small.fa.gz", genome);
  const data::FastaReader fasta(genome);
  const std::vector<ExpectedWindow> rows = read_fixture();
  REQUIRE(rows.size() == 66);
  std::set<std::string> kinds;
  for (const int64_t length : {200, 201, 2114}) {
    AlleleWindowSource source(fasta, length);
    std::vector<AllelePair> pairs;
    std::vector<const ExpectedWindow*> expected;
    for (const ExpectedWindow& row : rows) {
      if (row.length != length) continue;
      REQUIRE(alleles_fit(length, row.ref, row.alt));
      pairs.push_back({fasta.contig_id(row.chrom),
                       allele_source(row.position, length, row.ref, row.alt), row.ref, row.alt});
      expected.push_back(&row);
      kinds.insert(row.what);
    }
    source.set_pairs(std::move(pairs));
    source.prepare_workers(2);
    std::vector<uint8_t> codes(static_cast<size_t>(length));
    for (size_t i = 0; i < expected.size(); ++i) {
      const ExpectedWindow& row = *expected[i];
      CAPTURE(row.chrom);
      CAPTURE(row.position);
      CAPTURE(row.ref);
      CAPTURE(row.alt);
      CAPTURE(length);
      source.fetch(static_cast<int64_t>(2 * i), 0, codes.data(), nullptr, static_cast<int>(i % 2));
      CHECK(data::decode(codes.data(), codes.size()) == row.ref_window);
      source.fetch(static_cast<int64_t>(2 * i + 1), 0, codes.data(), nullptr, 0);
      CHECK(data::decode(codes.data(), codes.size()) == row.alt_window);
    }
  }
  CHECK(kinds.count("snv") == 1);
  CHECK(kinds.count("mnv") == 1);
  CHECK(kinds.count("insertion") == 1);
  CHECK(kinds.count("deletion") == 1);
  CHECK(kinds.count("snv at the first base") == 1);
  CHECK(kinds.count("deletion near the end") == 1);
}

TEST_CASE("allele windows: the allele starts at L/2 and the right flank follows REF") {
  // source: 10 bases of "genome" 0123456789 as codes A C G T A C G T A C (+ 2 for a deletion).
  const std::string genome = "ACGTACGTACGT";
  std::vector<uint8_t> source(genome.size());
  data::encode(genome.data(), genome.size(), source.data());
  std::vector<uint8_t> ref(10), alt(10);
  const auto text = [](const std::vector<uint8_t>& codes) {
    return data::decode(codes.data(), codes.size());
  };
  build_allele_windows(source.data(), 10, "A", "G", ref.data(), alt.data());  // SNV at base 5
  CHECK(text(ref) == "ACGTAAGTAC");
  CHECK(text(alt) == "ACGTAGGTAC");
  build_allele_windows(source.data(), 10, "C", "CTT", ref.data(), alt.data());  // insertion
  CHECK(text(ref) == "ACGTACGTAC");
  CHECK(text(alt) == "ACGTACTTGT");
  build_allele_windows(source.data(), 10, "CGT", "C", ref.data(), alt.data());  // deletion
  CHECK(text(ref) == "ACGTACGTAC");
  CHECK(text(alt) == "ACGTACACGT");
  CHECK(allele_source(100, 10, "CGT", "C").start == 94);
  CHECK(allele_source(100, 10, "CGT", "C").length == 12);
  CHECK(alleles_fit(10, "A", "ACGTA"));
  CHECK_FALSE(alleles_fit(10, "A", "ACGTAC"));
  CHECK_FALSE(alleles_fit(11, "ACGTACG", "A"));
  CHECK(alleles_fit(11, "ACGTAC", "A"));
}

TEST_CASE("allele windows: the changed range of SNVs, MNVs and indels") {
  CHECK(changed_range(10, "A", "G").begin == 5);
  CHECK(changed_range(10, "A", "G").end == 6);
  CHECK(changed_range(10, "ACG", "ATG").begin == 6);  // only the middle base differs
  CHECK(changed_range(10, "ACG", "ATG").end == 7);
  CHECK(changed_range(10, "A", "a").begin == changed_range(10, "A", "a").end);
  CHECK(changed_range(10, "A", "AT").begin == 5);
  CHECK(changed_range(10, "A", "AT").end == 10);
}

}  // namespace
}  // namespace strand::variants
