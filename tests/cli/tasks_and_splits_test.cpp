// Multi-task BED data from the command line (issue 14): label columns, task names from a '#'
// header or --task-names, and one file split into train/validation/test by chromosome, fold
// file or fraction; every misuse fails naming the keys or file.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli_test_support.h"
#include "fmt/format.h"

namespace strand::cli {
namespace {

using testing::CliResult;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::with;
using testing::write_text;

std::vector<std::string> inspect_args(const TempDir& dir) {
  return {"inspect",         "--fasta", dir.str("g.fa"), "--intervals", dir.str("tasks.bed"),
          "--label-columns", "5-7",     "--window",      "100"};
}

// The count column of a split's line in `strand inspect` output, -1 when absent.
int64_t split_count(const std::string& text, const std::string& split) {
  const size_t at = text.find("\n" + split + " ");
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + 1 + split.size()));
}

TEST_CASE("tasks: label columns and '#' header names go from the BED to predict's columns") {
  TempDir dir("tasks");
  testing::write_three_task_data(dir);
  const CliResult trained = run({"train",
                                 "--config",
                                 dir.str("model.json"),
                                 "--fasta",
                                 dir.str("g.fa"),
                                 "--intervals",
                                 dir.str("tasks.bed"),
                                 "--label-columns",
                                 "5-7",
                                 "--window",
                                 "100",
                                 "--valid-chroms",
                                 "chr8",
                                 "--test-chroms",
                                 "chr1",
                                 "--epochs",
                                 "1",
                                 "--batch-size",
                                 "16",
                                 "--threads",
                                 "1",
                                 "--output-dir",
                                 dir.str(),
                                 "--run-name",
                                 "r"});
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  CHECK(trained.out.find("split by chromosomes: validation chr8, test chr1)\n      train 30, "
                         "validation 30, test 30") != std::string::npos);
  // The run's data.label_columns applies to predict as well, and the names follow.
  const CliResult predicted = run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"),
                                   "--intervals", dir.str("tasks.bed"), "--out", "-"});
  REQUIRE_MESSAGE(predicted.status == 0, predicted.err);
  CHECK(predicted.out.rfind("name\tchrom\tstart\tend\tlabel_CTCF\tlabel_JUN\tlabel_POLR2A\tCTCF\t"
                            "JUN\tPOLR2A\nchr1:50-150\tchr1\t50\t150\t0\tNA\tNA\t",
                            0) == 0);
  // --task-names replaces the header's names; the count must match.
  const CliResult renamed = run(with(inspect_args(dir), {"--task-names", "a,b"}));
  CHECK(renamed.status == 1);
  CHECK(renamed.err.find("2 task names given (a,b) but '") != std::string::npos);
  CHECK(renamed.err.find("tasks.bed' has 3 label columns (CTCF,JUN,POLR2A)") != std::string::npos);
  // The config key takes the same syntax and is checked before any file is read.
  write_text(dir.path() / "bad.json",
             fmt::format(R"({{"data": {{"source": "files", "fasta": "{}", "intervals": "{}",
                                        "label_columns": "5-x"}}}})",
                         dir.str("g.fa"), dir.str("tasks.bed")));
  const CliResult bad = run({"inspect", "--config", dir.str("bad.json")});
  CHECK(bad.status == 1);
  CHECK(bad.err.find("data.label_columns: '5-x' in '5-x' is not a column number") !=
        std::string::npos);
  // A header without '#' is an error that says how to write it.
  std::string bare = read_text(dir.path() / "tasks.bed").substr(1);
  write_text(dir.path() / "bare.bed", bare);
  const CliResult no_hash = run({"inspect", "--fasta", dir.str("g.fa"), "--intervals",
                                 dir.str("bare.bed"), "--label-columns", "5-7"});
  CHECK(no_hash.status == 1);
  CHECK(no_hash.err.find("bare.bed:1: ") != std::string::npos);
  CHECK(no_hash.err.find("start it with '#'") != std::string::npos);
}

TEST_CASE("splits: chromosomes, a fold file and fractions divide one file") {
  TempDir dir("splits");
  testing::write_three_task_data(dir);
  const CliResult chroms =
      run(with(inspect_args(dir), {"--valid-chroms", "chr8", "--test-chroms", "chr1"}));
  REQUIRE_MESSAGE(chroms.status == 0, chroms.err);
  CHECK(split_count(chroms.out, "train") == 30);
  CHECK(split_count(chroms.out, "validation") == 30);
  CHECK(split_count(chroms.out, "test") == 30);
  write_text(dir.path() / "fold.json",
             R"({"train": ["chr2"], "valid": ["chr8"], "test": ["chr9", "chr1"]})");
  const CliResult fold = run(with(inspect_args(dir), {"--folds", dir.str("fold.json")}));
  REQUIRE_MESSAGE(fold.status == 0, fold.err);
  CHECK(split_count(fold.out, "train") == 30);
  CHECK(split_count(fold.out, "test") == 30);
  // Fractions: stratified and seeded, the same split for the same seed.
  const auto fractions =
      with(inspect_args(dir), {"--valid-fraction", "0.2", "--test-fraction", "0.1", "--seed", "4"});
  const CliResult first = run(fractions);
  REQUIRE_MESSAGE(first.status == 0, first.err);
  CHECK(split_count(first.out, "validation") == 18);
  CHECK(split_count(first.out, "test") == 10);  // 15 negatives: 1.5 -> 2; 75 positives: 7.5 -> 8
  CHECK(split_count(first.out, "train") == 62);
  CHECK(run(fractions).out == first.out);
  // Training with early stopping needs no validation file when a split validates.
  const CliResult trained = run({"train",
                                 "--config",
                                 dir.str("model.json"),
                                 "--fasta",
                                 dir.str("g.fa"),
                                 "--intervals",
                                 dir.str("tasks.bed"),
                                 "--label-columns",
                                 "5-7",
                                 "--window",
                                 "100",
                                 "--valid-fraction",
                                 "0.2",
                                 "--epochs",
                                 "1",
                                 "--threads",
                                 "1",
                                 "--output-dir",
                                 dir.str(),
                                 "--run-name",
                                 "f"});
  CHECK_MESSAGE(trained.status == 0, trained.err);
}

TEST_CASE("splits: misuse fails naming the keys, the chromosome or the fold file") {
  TempDir dir("split-errors");
  testing::write_three_task_data(dir);
  const auto fails = [&](const std::vector<std::string>& more, const std::string& expected) {
    const CliResult result = run(with(inspect_args(dir), more));
    CHECK(result.status == 1);
    CHECK_MESSAGE(result.err.find(expected) != std::string::npos, result.err);
  };
  fails({"--valid-chroms", "chr9"}, "validation chromosome 'chr9' has no interval in '");
  fails({"--valid-chroms", "chr8", "--test-chroms", "chrX"},
        "test chromosome 'chrX' is not a contig of FASTA '");
  fails({"--valid-chroms", "chr8", "--valid-intervals", dir.str("tasks.bed")},
        "data.valid_intervals and data.valid_chroms: ");
  fails({"--test-fraction", "0.1", "--test-intervals", dir.str("tasks.bed")},
        "data.test_intervals and data.test_fraction: ");
  fails({"--test-fraction", "0.1", "--valid-fasta", dir.str("g.fa")},
        "data.valid_fasta and data.test_fraction: the parts of a split");
  fails({"--valid-chroms", "chr8", "--valid-fraction", "0.1"},
        "data.valid_chroms and data.valid_fraction: split data.intervals one way");
  fails({"--valid-fraction", "0.6", "--test-fraction", "0.5"},
        "data.valid_fraction and data.test_fraction: 0.6 + 0.5 leave nothing to train on");
  fails({"--valid-fraction", "1"}, "data.valid_fraction: must be in [0, 1)");
  fails({"--valid-chroms", "chr8,,chr1"}, "data.valid_chroms: entry 2 of 'chr8,,chr1' is empty");
  write_text(dir.path() / "fold.json",
             R"({"train": ["chr2"], "valid": ["chr8"], "tests": ["chr1"]})");
  fails({"--folds", dir.str("fold.json")}, "fold.json': unknown key \"tests\"");
  write_text(dir.path() / "twice.json",
             R"({"train": ["chr1"], "valid": ["chr8"], "test": ["chr1"]})");
  fails({"--folds", dir.str("twice.json")},
        "chromosome 'chr1' is listed in \"train\" and again in \"test\"");
  fails({"--folds", dir.str("missing.json")}, "data.folds: file '");
}

}  // namespace
}  // namespace strand::cli
