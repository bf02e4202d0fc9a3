// `strand predict` without labels (issue 14): every record of a FASTA, BED3/BED6 intervals,
// tiles across a region as a TSV or a bedGraph, and scores averaged with the reverse complement.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "fmt/format.h"

namespace strand::cli {
namespace {

using testing::CliResult;
using testing::count_lines;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::tsv_rows;
using testing::write_text;

// `length` pseudo-random bases from `seed`.
std::string bases(int64_t length, uint64_t seed) {
  std::string out;
  for (int64_t i = 0; i < length; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    out += "ACGT"[(seed >> 33) % 4];
  }
  return out;
}

std::string reverse_complement(const std::string& s) {
  std::string out(s.rbegin(), s.rend());
  for (char& c : out) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return out;
}

// A run of the tiny simulated model (100 bp input) under dir/r, and a genome dir/g.fa.
void train_and_write_genome(const TempDir& dir) {
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  write_text(dir.path() / "g.fa", ">chr1\n" + bases(1000, 1) + "\n>chr2\n" + bases(300, 2) + "\n");
}

TEST_CASE("predict: every record of a FASTA, of the model's length or centred with --center") {
  TempDir dir("predict-fasta");
  train_and_write_genome(dir);
  const std::string r1 = bases(100, 3);
  write_text(dir.path() / "r.fa", ">r1\n" + r1 + "\n>r2\n" + bases(100, 4) + "\n");
  const CliResult exact =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("r.fa"), "--out", "-"});
  REQUIRE_MESSAGE(exact.status == 0, exact.err);
  const auto rows = tsv_rows(exact.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == std::vector<std::string>{"name", "chrom", "start", "end", "task_0"});
  CHECK(rows[1][0] == "r1");
  CHECK(rows[1][1] == "r1");
  CHECK(rows[1][2] == "0");
  CHECK(rows[1][3] == "100");
  // A longer record is an error naming it, unless --center scores its central window.
  write_text(dir.path() / "long.fa", ">r1\n" + r1 + "\n>r3\nAAAAA" + r1 + "AAAAAAA\n");
  const CliResult longer =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("long.fa"), "--out", "-"});
  CHECK(longer.status == 1);
  CHECK(longer.err.find("record 'r3' has 112 bases but the model takes 100") != std::string::npos);
  CHECK(longer.err.find("--center") != std::string::npos);
  const CliResult centred = run({"predict", "--model", dir.str("r"), "--fasta", dir.str("long.fa"),
                                 "--center", "--out", "-"});
  REQUIRE_MESSAGE(centred.status == 0, centred.err);
  const auto centred_rows = tsv_rows(centred.out);
  CHECK(centred_rows[2][2] == "6");  // 112 / 2 - 100 / 2
  CHECK(centred_rows[2][3] == "106");
  write_text(dir.path() / "short.fa", ">s\nACGT\n");
  const CliResult shorter = run({"predict", "--model", dir.str("r"), "--fasta", dir.str("short.fa"),
                                 "--center", "--out", "-"});
  CHECK(shorter.status == 1);
  CHECK(shorter.err.find("record 's' has 4 bases") != std::string::npos);
}

TEST_CASE("predict: BED3 and BED6 intervals need no label column") {
  TempDir dir("predict-bed3");
  train_and_write_genome(dir);
  write_text(dir.path() / "a.bed", "chr1\t100\t200\nchr2\t0\t20\n");
  const CliResult bed3 = run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"),
                              "--intervals", dir.str("a.bed"), "--format", "bed", "--out", "-"});
  REQUIRE_MESSAGE(bed3.status == 0, bed3.err);
  const auto rows = tsv_rows(bed3.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == std::vector<std::string>{"name", "chrom", "start", "end", "task_0"});
  CHECK(rows[1] == std::vector<std::string>{"chr1:100-200", "chr1", "100", "200", rows[1][4]});
  // A window near a contig start stays inside the contig: the window scored, not the interval.
  CHECK(rows[2][2] == "0");
  CHECK(rows[2][3] == "100");
  write_text(dir.path() / "b.bed", "chr1\t100\t200\tpeak1\t0\t+\n");
  const CliResult bed6 = run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"),
                              "--intervals", dir.str("b.bed"), "--format", "bed", "--out", "-"});
  REQUIRE_MESSAGE(bed6.status == 0, bed6.err);
  CHECK(tsv_rows(bed6.out)[0].size() == 5);
  // --label-columns insists: a name there is an error naming the line.
  const CliResult forced =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"), "--intervals",
           dir.str("b.bed"), "--format", "bed", "--label-columns", "4", "--out", "-"});
  CHECK(forced.status == 1);
  CHECK(forced.err.find("b.bed:1: label column 4 must be a finite number") != std::string::npos);
}

TEST_CASE("predict: tiles as a TSV and as a bedGraph of each window's central bases") {
  TempDir dir("predict-tiles");
  train_and_write_genome(dir);
  const CliResult tsv =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"), "--tile", "chr2:1-300",
           "--tile", "chr1:101-400", "--step", "50", "--out", dir.str("t.tsv")});
  REQUIRE_MESSAGE(tsv.status == 0, tsv.err);
  const auto rows = tsv_rows(read_text(dir.path() / "t.tsv"));
  // chr1 first (FASTA order): 101-400 holds starts 100, 150, 200, 250, 300; chr2 0..200.
  REQUIRE(rows.size() == 1 + 5 + 5);
  CHECK(rows[1][0] == "chr1:100-200");
  CHECK(rows[6][0] == "chr2:0-100");
  const CliResult bedgraph =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"), "--tile", "chr2:1-300",
           "--tile", "chr1:101-400", "--step", "50", "--out", dir.str("t.bg")});
  REQUIRE_MESSAGE(bedgraph.status == 0, bedgraph.err);
  const auto lines = tsv_rows(read_text(dir.path() / "t.bg"));
  REQUIRE(lines.size() == 10);
  for (size_t i = 0; i < lines.size(); ++i) {
    CAPTURE(i);
    REQUIRE(lines[i].size() == 4);
    const int64_t start = std::stoll(lines[i][1]);
    CHECK(std::stoll(lines[i][2]) - start == 50);
    // The window [s, s + 100) gives its score to [s + 25, s + 75).
    CHECK(start == std::stoll(rows[i + 1][2]) + 25);
    CHECK(lines[i][3] == rows[i + 1][4]);
    if (i > 0 && lines[i][0] == lines[i - 1][0]) CHECK(lines[i - 1][2] == lines[i][1]);
  }
  const auto fails = [&](const std::vector<std::string>& more, const std::string& expected) {
    std::vector<std::string> args = {"predict", "--model", dir.str("r"), "--fasta",
                                     dir.str("g.fa")};
    args.insert(args.end(), more.begin(), more.end());
    const CliResult result = run(args);
    CHECK(result.status == 1);
    CHECK_MESSAGE(result.err.find(expected) != std::string::npos, result.err);
  };
  fails({"--out", dir.str("x.bedgraph")}, "a bedGraph needs non-overlapping windows");
  fails({"--tile", "chr1:1-500", "--step", "150", "--out", "-"}, "the tiles would leave gaps");
  fails({"--tile", "chr1:1-500", "--tile", "chr1:400-600", "--out", "-"}, "overlap");
  fails({"--tile", "chr3:1-500", "--out", "-"}, "--tile: region 'chr3:1-500': contig 'chr3'");
  fails({"--tile", "chr1:1-50", "--out", "-"}, "shorter than one 100-base window");
  fails({"--tile", "chr1", "--task", "0", "--out", "-"}, "--task: chooses the task of a bedGraph");
  fails({"--tile", "chr1", "--out-format", "bed", "--out", "-"},
        "--out-format: 'bed' is not one of tsv, bedgraph");
  fails({"--tile", "chr1", "--intervals", dir.str("g.fa"), "--out", "-"}, "no --intervals");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "x.bedgraph"));
}

TEST_CASE("predict: --rc-average is the mean of the sequence's and its reverse complement's") {
  TempDir dir("predict-rc");
  train_and_write_genome(dir);
  std::string fasta;
  for (int i = 0; i < 5; ++i) {
    const std::string s = bases(100, 10 + static_cast<uint64_t>(i));
    fasta += fmt::format(">f{0}\n{1}\n>r{0}\n{2}\n", i, s, reverse_complement(s));
  }
  write_text(dir.path() / "s.fa", fasta);
  const CliResult plain =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("s.fa"), "--out", "-"});
  const CliResult averaged = run({"predict", "--model", dir.str("r"), "--fasta", dir.str("s.fa"),
                                  "--rc-average", "--batch-size", "3", "--out", "-"});
  REQUIRE_MESSAGE(plain.status == 0, plain.err);
  REQUIRE_MESSAGE(averaged.status == 0, averaged.err);
  CHECK(averaged.err.find("averaged with the reverse complement") != std::string::npos);
  const auto single = tsv_rows(plain.out);
  const auto both = tsv_rows(averaged.out);
  REQUIRE(both.size() == 11);
  for (size_t i = 1; i < both.size(); i += 2) {
    const double forward = std::stod(single[i][4]);
    const double reverse = std::stod(single[i + 1][4]);
    CAPTURE(i);
    CHECK(std::fabs(forward - reverse) > 1e-6);  // the model is not strand-symmetric
    CHECK(std::stod(both[i][4]) == doctest::Approx((forward + reverse) / 2).epsilon(1e-5));
    CHECK(std::stod(both[i + 1][4]) == doctest::Approx((forward + reverse) / 2).epsilon(1e-5));
  }
}

}  // namespace
}  // namespace strand::cli
