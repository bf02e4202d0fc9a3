// Tests for checking an existing .fai against its FASTA (issue 10, item 2): swapped, shortened,
// negative, overflowing or missing entries are found even when the .fai is newer than the
// FASTA; StaleIndexPolicy::kError refuses naming the .fai line, kRebuild rebuilds with one
// warning saying why. BGZF indexes (.fai and .gzi) are checked by reading through them.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/fasta/fai_check.h"
#include "data/fasta/fasta_index.h"
#include "data/fasta/fasta_reader.h"
#include "data/test_paths.h"
#include "data/warnings.h"
#include "fmt/format.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

const std::string kFasta =
    ">a desc\nACGTACGTAC\nGGTT\n>b\nTTTTTTTTTT\nTTTTTTTTTT\nCC\n>c\nGATTACA\n";
const std::string kFai = "a\t14\t8\t10\t11\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n";

void make_older(const std::string& path) {
  const auto t = std::filesystem::last_write_time(path);
  std::filesystem::last_write_time(path, t - std::chrono::hours(1));
}

// Writes kFasta and `fai` (the FASTA an hour older, so only the content can make it stale).
std::string write_pair(const TempDir& dir, const std::string& fai) {
  const std::string fa = dir.write("g.fa", kFasta);
  dir.write("g.fa.fai", fai);
  make_older(fa);
  return fa;
}

// The error under kError for kFasta with `fai`; empty when the index is accepted.
std::string refusal(const std::string& fai) {
  TempDir dir;
  const std::string fa = write_pair(dir, fai);
  FastaOptions strict;
  strict.stale_index = StaleIndexPolicy::kError;
  try {
    FastaReader reader(fa, strict);
  } catch (const DataError& error) {
    CHECK(read_text(fa + ".fai") == fai);  // a refused index is left alone
    return error.what();
  }
  return {};
}

// Opens kFasta with `fai` under kRebuild: one warning, then the right index and bases.
std::vector<std::string> rebuild_warnings(const std::string& fai) {
  TempDir dir;
  const std::string fa = write_pair(dir, fai);
  std::vector<std::string> warnings;
  const ScopedWarningHandler handler([&](std::string_view m) { warnings.emplace_back(m); });
  FastaReader reader(fa);
  CHECK(reader.index_paths().built);
  CHECK(read_text(fa + ".fai") == kFai);
  CHECK(reader.fetch("a", 0, 14) == "ACGTACGTACGGTT");
  CHECK(reader.fetch("b", 18, 22) == "TTCC");
  CHECK(reader.fetch("c", 0, 7) == "GATTACA");
  return warnings;
}

void check_bad_fai(const std::string& fai, const std::string& expected) {
  CAPTURE(fai);
  CAPTURE(expected);
  const std::string error = refusal(fai);
  CAPTURE(error);
  CHECK(error.find("is stale or does not match FASTA") != std::string::npos);
  CHECK(error.find(expected) != std::string::npos);
  const auto warnings = rebuild_warnings(fai);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(expected) != std::string::npos);
  CHECK(warnings[0].find("rebuilding it") != std::string::npos);
}

}  // namespace

TEST_CASE("a correct .fai is accepted without a rebuild or a warning") {
  CHECK(refusal(kFai).empty());
  TempDir dir;
  const std::string fa = write_pair(dir, kFai);
  std::vector<std::string> warnings;
  const ScopedWarningHandler handler([&](std::string_view m) { warnings.emplace_back(m); });
  FastaReader reader(fa);
  CHECK_FALSE(reader.index_paths().built);
  CHECK(warnings.empty());
  // samtools' index of the C. elegans fixture passes too.
  const std::string ce = dir.copy_in(fixture("genomes/ce.fa"), "ce.fa");
  dir.copy_in(fixture("genomes/ce.fa.fai"), "ce.fa.fai");
  make_older(ce);
  CHECK_FALSE(FastaReader(ce).index_paths().built);
  CHECK(warnings.empty());
}

TEST_CASE("swapped .fai records are found and the .fai line named") {
  // Reproducer from issue 10, item 2: both were accepted and the wrong bases read silently.
  // Lines swapped: 'b' comes first, so the FASTA before its header belongs to no record.
  check_bad_fai("b\t22\t27\t10\t11\na\t14\t8\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'b': the bytes before its header ('>a desc\\nACGTACGTAC");
  check_bad_fai("b\t14\t8\t10\t11\na\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'b' is at byte 8, but the line before it is '>a desc'");
}

TEST_CASE("shortened and lengthened records are found") {
  check_bad_fai("a\t12\t8\t10\t11\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'a' (length 12) ends at byte 21 but the sequence goes on");
  check_bad_fai("a\t14\t8\t10\t11\nb\t22\t27\t10\t11\nc\t5\t55\t7\t8\n",
                "g.fa.fai:3: record 'c' (length 5) ends at byte 60 but the sequence goes on");
  check_bad_fai("a\t15\t8\t10\t11\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'a' (length 15) should end at byte 24, which is not a base");
  check_bad_fai("a\t14\t8\t10\t11\nb\t22\t27\t10\t11\nc\t70\t55\t7\t8\n",
                "record 'c' (length 70) ends at byte 134, past the end of FASTA");
}

TEST_CASE("negative and overflowing numbers in a .fai are refused, never computed with") {
  // Reproducer from issue 10, item 2: 9223372036854775000 overflowed int64 in the extent check
  // (data/fasta/fasta_index.cpp:87), undefined behaviour caught by the UBSan build.
  check_bad_fai("a\t9223372036854775000\t8\t10\t11\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'a' (length 9223372036854775000, 11 bytes per line, at byte "
                "8) does not fit any file");
  check_bad_fai("a\t14\t8\t10\t11\nb\t-5\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:2: LENGTH (column 2) must be an integer from 0 to 9223372036854775807, "
                "found '-5'");
  check_bad_fai("a\t14\t8\t10\t11\nb\t22\t99999999999999999999\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:2: OFFSET (column 3) must be an integer");
  check_bad_fai("a\t14\t9223372036854775807\t10\t11\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'a' (length 14, 11 bytes per line, at byte "
                "9223372036854775807) does not fit any file");
}

TEST_CASE("wrong line geometry, offsets and missing records are found") {
  check_bad_fai("a\t14\t8\t10\t12\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n", "g.fa.fai:1: record 'a'");
  check_bad_fai("a\t14\t8\t0\t11\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'a' has 0 bases in lines of 11 bytes");
  check_bad_fai("a\t14\t9\t10\t11\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'a' starts at byte 9, which does not follow a line break");
  check_bad_fai("a\t14\t8\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:2: record 'c': the bytes before its header "
                "('\\n>b\\nTTTTTTTTTT\\nTTTTTTTTTT\\nCC\\n')");
  check_bad_fai("a\t14\t8\t10\t11\nb\t22\t27\t10\t11\n", "g.fa' goes on after record 'b' (");
  check_bad_fai("a\t14\t8\t10\t11\nb\t22\t8\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:2: record 'b' starts at byte 8, inside or right after record 'a'");
  check_bad_fai("b\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: record 'b': the bytes before its header ('>a desc\\nACGTACGTAC");
}

TEST_CASE("malformed .fai lines: field counts, duplicates, an empty index") {
  check_bad_fai("a\t14\t8\t10\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: expected 5 tab-separated fields");
  check_bad_fai("a\t14\t8\t10\t11\t0\nb\t22\t27\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:1: expected 5 tab-separated fields");
  check_bad_fai("a\t14\t8\t10\t11\na\t14\t8\t10\t11\nc\t7\t55\t7\t8\n",
                "g.fa.fai:2: record 'a' is listed twice (also on line 1)");
  check_bad_fai("", "it lists no records");
  check_bad_fai(std::string("a\t14\t8\0\t10\t11\n", 15), "OFFSET (column 3) must be an integer");
}

TEST_CASE("BGZF: a .fai or .gzi that does not match is found by reading through them") {
  TempDir dir;
  const std::string fa = dir.copy_in(fixture("genomes/yeast_small.fa.gz"), "y.fa.gz");
  { FastaReader first(fa); }
  const std::string good_fai = read_text(fa + ".fai");
  const std::string good_gzi = read_text(fa + ".gzi");
  make_older(fa);
  FastaOptions strict;
  strict.stale_index = StaleIndexPolicy::kError;
  CHECK_FALSE(FastaReader(fa, strict).index_paths().built);
  const auto entries = read_fai(fa + ".fai");
  REQUIRE(entries.size() >= 2);

  // The first two names swapped.
  std::string swapped = good_fai;
  const std::string n0 = entries[0].name;
  const std::string n1 = entries[1].name;
  swapped.replace(swapped.find(n1), n1.size(), "@@");
  swapped.replace(swapped.find(n0), n0.size(), n1);
  swapped.replace(swapped.find("@@"), 2, n0);
  dir.write("y.fa.gz.fai", swapped);
  const std::string swap_error = fmt::format("y.fa.gz.fai:1: record '{}' is at byte", n1);
  CHECK_THROWS_WITH_AS(FastaReader(fa, strict), doctest::Contains(swap_error.c_str()), DataError);

  // A .gzi whose uncompressed offsets are shifted: the records are not where the .fai says.
  dir.write("y.fa.gz.fai", good_fai);
  std::string shifted = good_gzi;
  uint64_t count = 0;
  std::memcpy(&count, shifted.data(), 8);
  REQUIRE(count >= 1);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t uncompressed = 0;
    std::memcpy(&uncompressed, shifted.data() + 8 + 16 * i + 8, 8);
    uncompressed += 1000;
    std::memcpy(shifted.data() + 8 + 16 * i + 8, &uncompressed, 8);
  }
  dir.write("y.fa.gz.gzi", shifted);
  CHECK_THROWS_WITH_AS(FastaReader(fa, strict), doctest::Contains("is stale or does not match"),
                       DataError);
  dir.write("y.fa.gz.gzi", "garbage");
  CHECK_THROWS_WITH_AS(FastaReader(fa, strict), doctest::Contains("cannot be read"), DataError);
  // kRebuild repairs it with one warning.
  std::vector<std::string> warnings;
  const ScopedWarningHandler handler([&](std::string_view m) { warnings.emplace_back(m); });
  FastaReader rebuilt(fa);
  CHECK(rebuilt.index_paths().built);
  CHECK(warnings.size() == 1);
  CHECK(read_text(fa + ".gzi") == good_gzi);
}

namespace {

// Writes `name` and its .fai (the FASTA an hour older) and opens it refusing stale indexes.
FastaReader open_with_index(const TempDir& dir, const std::string& name, const std::string& fasta,
                            const std::string& fai) {
  const std::string fa = dir.write(name, fasta);
  dir.write(name + ".fai", fai);
  make_older(fa);
  FastaOptions strict;
  strict.stale_index = StaleIndexPolicy::kError;
  return FastaReader(fa, strict);
}

}  // namespace

TEST_CASE("a blank line where the index puts the last line's bases is found when opening") {
  // The fuzz_fai reproducer: record x has a blank line before its last base.
  TempDir dir;
  CHECK_THROWS_WITH_AS(open_with_index(dir, "x.fa", ">x\nACGTAC\n\nT\n>y\nTTTT\n",
                                       "x\t8\t3\t6\t7\ny\t4\t16\t4\t5\n"),
                       doctest::Contains("x.fa.fai:1: record 'x' (length 8) should have a base at "
                                         "byte 10, where its last line starts"),
                       DataError);
}

TEST_CASE("a line the spot checks do not visit is checked by every read through it") {
  // Record x, 4 bases in lines of 5 bytes: its third line is one base short and its fourth one
  // long, so every line the opening checks visit (first, second to last, last) is in place.
  TempDir dir;
  const FastaReader reader =
      open_with_index(dir, "x.fa", ">x\nACGT\nACGT\nACG\nTTACG\nACGT\nAC\n", "x\t22\t3\t4\t5\n");
  const std::string fa = reader.path();
  CHECK(reader.fetch("x", 0, 8) == "ACGTACGT");
  CHECK(reader.fetch("x", 16, 22) == "ACGTAC");
  const std::string expected =
      "FASTA '" + fa + "': byte 16 in record 'x' is a line break where its index '" + fa +
      ".fai' (line 1) places a base: the index does not match the file (changed after "
      "indexing?); delete the index and strand rebuilds it";
  CHECK_THROWS_WITH_AS((void)reader.fetch("x", 0, 22), expected.c_str(), DataError);
  std::vector<uint8_t> codes(4);
  CHECK_THROWS_AS(reader.fetch_codes("x", 10, 14, codes.data()), DataError);
  // A line that runs on past the line break the index expects is refused too.
  const FastaReader reader_y =
      open_with_index(dir, "y.fa", ">y\nACGT\nACGTA\nCGT\nACGT\nAC\n", "y\t18\t3\t4\t5\n");
  CHECK(reader_y.fetch("y", 16, 18) == "AC");
  CHECK_THROWS_WITH_AS((void)reader_y.fetch("y", 2, 9),
                       doctest::Contains("byte 12 in record 'y' is 'A' where its index"),
                       DataError);
}

TEST_CASE("a FASTA cut short after indexing is an error naming the byte, not short bases") {
  TempDir dir;
  const std::string fa = dir.write("x.fa", ">x\nACGT\nACGT\nAC\n");
  const FastaReader reader(fa);
  std::filesystem::resize_file(fa, 12);
  CHECK_THROWS_WITH_AS((void)reader.fetch("x", 0, 10),
                       doctest::Contains("ends at byte 12, inside record 'x'"), DataError);
}
