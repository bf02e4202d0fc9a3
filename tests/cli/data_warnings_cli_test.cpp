// Data-layer warnings reach the command's error stream (issue 10, items 2 and 4): a stale
// FASTA index is rebuilt with one "warning:" line saying why, and nothing else is printed.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "cli_test_support.h"
#include "fmt/format.h"

using namespace strand::cli::testing;

TEST_CASE("a stale FASTA index is rebuilt with one warning on the error stream") {
  TempDir dir("stale-fai");
  std::string fasta;
  std::string tsv;
  for (int i = 0; i < 8; ++i) {
    fasta += fmt::format(">r{}\nACGTACGTAC\nGGTTAACCGG\n", i);
    tsv += fmt::format("r{}\t{}\n", i, i % 2);
  }
  write_text(dir.path() / "g.fa", fasta);
  write_text(dir.path() / "labels.tsv", tsv);
  // An index with the first two records swapped, newer than the FASTA.
  std::string fai = "r1\t20\t4\t10\t11\nr0\t20\t30\t10\t11\n";
  for (int i = 2; i < 8; ++i) fai += fmt::format("r{}\t20\t{}\t10\t11\n", i, 4 + 26 * i);
  write_text(dir.path() / "g.fa.fai", fai);
  const auto old = std::filesystem::last_write_time(dir.path() / "g.fa");
  std::filesystem::last_write_time(dir.path() / "g.fa", old - std::chrono::hours(1));

  const CliResult result =
      run({"inspect", "--format", "records", "--fasta", dir.str("g.fa"), "--intervals",
           dir.str("labels.tsv"), "--valid-intervals", dir.str("labels.tsv")});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(count_lines(result.err) == 1);
  CHECK(result.err.find("warning: FASTA index '") == 0);
  CHECK(result.err.find("g.fa.fai:1: record 'r1'") != std::string::npos);
  CHECK(result.err.find("rebuilding it") != std::string::npos);
  CHECK(read_text(dir.path() / "g.fa.fai").find("r0\t20\t4\t10\t11\n") == 0);
}
