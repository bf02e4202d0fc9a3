// strand train checks labels when it loads the files (issue 10, item 6): a label of 2 for a
// binary loss, a label that is no number, or no valid label at all, fails before training,
// naming the file and line. Binary losses take 0/1 labels; regression losses (mse, poisson) any
// finite number, scored by correlations (app/data_builder.h).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli_test_support.h"
#include "fmt/format.h"

using namespace strand::cli::testing;

namespace {

// 40 records of 24 bases; labels alternate 0/1, with `replace` applied to line `line`.
void write_records(const TempDir& dir, int line, const std::string& replace) {
  std::string fasta;
  std::string tsv;
  for (int i = 0; i < 40; ++i) {
    fasta += fmt::format(">r{}\n{}ACGTACGTACGT\n", i, i % 2 == 0 ? "ACGTACGTACGT" : "GGGCCCAAATTT");
    tsv += fmt::format("r{}\t{}\n", i, i + 1 == line ? replace : std::to_string(i % 2));
  }
  write_text(dir.path() / "g.fa", fasta);
  write_text(dir.path() / "labels.tsv", tsv);
}

std::vector<std::string> train_args(const TempDir& dir, const std::string& loss) {
  return {"train",
          "--format",
          "records",
          "--fasta",
          dir.str("g.fa"),
          "--intervals",
          dir.str("labels.tsv"),
          "--valid-intervals",
          dir.str("labels.tsv"),
          "--loss",
          loss,
          "--epochs",
          "1",
          "--batch-size",
          "8",
          "--threads",
          "1",
          "--output-dir",
          dir.str("runs")};
}

}  // namespace

TEST_CASE("binary cross-entropy: a label of 2 is an error naming file and line before training") {
  TempDir dir("labels-bce");
  write_records(dir, 7, "2");
  const CliResult result = run(train_args(dir, "binary_crossentropy"));
  CHECK(result.status == 1);
  CHECK(result.err.find("labels.tsv:7: label column 2 must be 0 or 1") != std::string::npos);
  CHECK(result.out.find("epoch") == std::string::npos);
}

TEST_CASE("every label missing is an error, not a run with loss 0") {
  TempDir dir("labels-missing");
  std::string fasta;
  std::string tsv;
  for (int i = 0; i < 8; ++i) {
    fasta += fmt::format(">r{}\nACGTACGTACGTACGT\n", i);
    tsv += fmt::format("r{}\t{}\n", i, i % 2 == 0 ? "nan" : "-nan");
  }
  write_text(dir.path() / "g.fa", fasta);
  write_text(dir.path() / "labels.tsv", tsv);
  const CliResult result = run(train_args(dir, "binary_crossentropy"));
  CHECK(result.status == 1);
  CHECK(result.err.find("every label in '") != std::string::npos);
}

TEST_CASE("mse trains on real-valued labels, and a label that is no number names its line") {
  TempDir dir("labels-mse");
  write_records(dir, 5, "0.5");
  const CliResult ok = run(train_args(dir, "mse"));
  CHECK_MESSAGE(ok.status == 0, ok.err);
  write_records(dir, 5, "2x");
  const CliResult bad = run(train_args(dir, "mse"));
  CHECK(bad.status == 1);
  CHECK(bad.err.find("labels.tsv:5: label column 2") != std::string::npos);
  write_records(dir, 5, "NA");
  const CliResult missing = run(train_args(dir, "mse"));
  CHECK_MESSAGE(missing.status == 0, missing.err);
}
