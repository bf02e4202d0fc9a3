// `strand predict` and `strand explain` over a FASTA's records alone read them from the file as
// they are scored (data::StreamedRecordSource): the same scores and attributions as the indexed
// path (the same records as intervals of a genome), each row named by its record, --plot-sequence
// found by name, and a peak resident memory that does not grow with the number of records.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "io/npz.h"
#include "support/child_process.h"
#include "test_helpers.h"

namespace strand::cli {
namespace {

using testing::CliResult;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::tsv_rows;
using testing::write_text;

// `count` records of 100 bp named rec<i>, 60 bases a line; record 3 holds an N and lowercase
// bases. `bed` gets each whole record as an interval.
void write_records(const TempDir& dir, const std::string& fasta, const std::string& bed,
                   int64_t count) {
  std::string text, intervals;
  uint64_t state = 99;
  for (int64_t i = 0; i < count; ++i) {
    std::string bases;
    for (int b = 0; b < 100; ++b) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      bases += "ACGT"[(state >> 33) % 4];
    }
    if (i == 3) bases.replace(10, 6, "NacgtA");
    const std::string name = "rec" + std::to_string(i);
    text += ">" + name + " description\n" + bases.substr(0, 60) + "\n" + bases.substr(60) + "\n";
    intervals += name + "\t0\t100\n";
  }
  write_text(dir.path() / fasta, text);
  if (!bed.empty()) write_text(dir.path() / bed, intervals);
}

TEST_CASE("predict and explain over records alone match the indexed path, row by row") {
  TempDir dir("records-streamed");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  write_records(dir, "recs.fa", "whole.bed", 40);
  // The genome copy is indexed by the interval path; the records file never gets a .fai.
  write_text(dir.path() / "genome.fa", read_text(dir.path() / "recs.fa"));
  for (const bool rc : {false, true}) {
    std::vector<std::string> streamed = {"predict",          "--model", dir.str("r"), "--fasta",
                                         dir.str("recs.fa"), "--out",   "-"};
    std::vector<std::string> indexed = {
        "predict", "--model", dir.str("r"), "--fasta",     dir.str("genome.fa"), "--format",
        "bed",     "--out",   "-",          "--intervals", dir.str("whole.bed")};
    if (rc) streamed.push_back("--rc-average");
    if (rc) indexed.push_back("--rc-average");
    const CliResult a = run(streamed), b = run(indexed);
    REQUIRE_MESSAGE(a.status == 0, a.err);
    REQUIRE_MESSAGE(b.status == 0, b.err);
    const auto rows_a = tsv_rows(a.out), rows_b = tsv_rows(b.out);
    REQUIRE(rows_a.size() == 41);
    REQUIRE(rows_b.size() == 41);
    CHECK(rows_a[0] == rows_b[0]);
    for (size_t i = 1; i < rows_a.size(); ++i) {
      CHECK(rows_a[i][0] == "rec" + std::to_string(i - 1));
      CHECK(rows_a[i][0] == rows_a[i][1]);
      CHECK(std::vector<std::string>(rows_a[i].begin() + 1, rows_a[i].end()) ==
            std::vector<std::string>(rows_b[i].begin() + 1, rows_b[i].end()));
    }
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "recs.fa.fai"));

  for (const std::string method : {"deeplift_shap", "ism"}) {
    const auto explain = [&](const std::string& stem, std::vector<std::string> input) {
      std::vector<std::string> args = {"explain",
                                       "--model",
                                       dir.str("r"),
                                       "--method",
                                       method,
                                       "--out",
                                       dir.str(stem + ".npz"),
                                       "--out",
                                       dir.str(stem + ".tsv"),
                                       "--references",
                                       "3",
                                       "--threads",
                                       "1"};
      args.insert(args.end(), input.begin(), input.end());
      const CliResult result = run(args);
      REQUIRE_MESSAGE(result.status == 0, result.err);
      return result;
    };
    explain("a", {"--fasta", dir.str("recs.fa"), "--plot", dir.str("logo.svg"), "--plot-sequence",
                  "rec37"});
    explain("b", {"--fasta", dir.str("genome.fa"), "--intervals", dir.str("whole.bed")});
    const auto npz_a = io::read_npz(dir.path() / "a.npz");
    const auto npz_b = io::read_npz(dir.path() / "b.npz");
    CHECK(npz_a[0].shape == Shape{40, 4, 100});
    CHECK(npz_a[0].bytes == npz_b[0].bytes);
    CHECK(io::read_npz(dir.path() / "a_onehot.npz")[0].bytes ==
          io::read_npz(dir.path() / "b_onehot.npz")[0].bytes);
    const auto tsv_a = tsv_rows(read_text(dir.path() / "a.tsv"));
    const auto tsv_b = tsv_rows(read_text(dir.path() / "b.tsv"));
    REQUIRE(tsv_a.size() == 1 + 40 * 100);
    REQUIRE(tsv_b.size() == tsv_a.size());
    for (size_t i = 1; i < tsv_a.size(); ++i) {
      CHECK(tsv_a[i][0] == "rec" + std::to_string((i - 1) / 100));
      CHECK(std::vector<std::string>(tsv_a[i].begin() + 1, tsv_a[i].end()) ==
            std::vector<std::string>(tsv_b[i].begin() + 1, tsv_b[i].end()));
    }
    CHECK(read_text(dir.path() / "logo.svg").find("rec37 (" + method) != std::string::npos);
  }
}

// Peak resident growth (KiB) of `strand predict` over `fasta`.
int64_t predict_peak_growth_kib(const TempDir& dir, const std::string& fasta) {
  return testing::peak_growth_kib({"predict", "--model", dir.str("r"), "--fasta", dir.str(fasta),
                                   "--threads", "1", "--out", dir.str(fasta + ".tsv")});
}

TEST_CASE("predict over records alone: peak memory flat from 2,000 to 40,000 records") {
  if (strand::testing::kSanitized) {
    STRAND_SKIP("resident memory is not measurable under sanitizers");
  }
  TempDir dir("records-memory");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  write_records(dir, "small.fa", "", 2000);
  write_records(dir, "large.fa", "", 40000);
  const int64_t small = predict_peak_growth_kib(dir, "small.fa");
  const int64_t large = predict_peak_growth_kib(dir, "large.fa");
  MESSAGE("predict peak RSS growth (KiB): 2,000 records " << small << ", 40,000 records " << large);
  // Indexed, 38,000 more records held ~18 MB (~0.47 kB each); streamed, the loader's plan
  // (16 bytes a row) is what remains.
  CHECK(large - small < 4 * 1024);
}

}  // namespace
}  // namespace strand::cli
