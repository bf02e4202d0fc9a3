// Issue 23 (3): `strand predict --rc-average` on an output with one value per stranded profile
// track (target log_counts) averaged the reverse complement's plus-strand value with the forward
// plus strand. The reverse complement's plus strand is the forward's minus strand, so the two
// swap, as the loader's augmentation swaps the tracks. Checked against the model run on the
// windows reverse complemented by samtools (tests/data/fixtures/rc_records, `samtools faidx -i`).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "fmt/format.h"

namespace strand::cli {
namespace {

using testing::CliResult;
using testing::run;
using testing::TempDir;
using testing::write_text;

std::string fixture(const std::string& name) {
  const char* source = std::getenv("STRAND_SOURCE_DIR");
  return std::string(source != nullptr ? source : STRAND_SOURCE_DIR) +
         "/tests/data/fixtures/rc_records/" + name;
}

// The last `columns` fields of every data row of a predict TSV.
std::vector<std::vector<double>> scores(const std::string& tsv, size_t columns) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(tsv);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string field; std::getline(split, field, '\t');) fields.push_back(field);
    REQUIRE(fields.size() >= columns);
    std::vector<double> row;
    for (size_t c = fields.size() - columns; c < fields.size(); ++c) {
      row.push_back(std::stod(fields[c]));
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TEST_CASE("predict --rc-average swaps the strands of a per-track counts output") {
  TempDir dir("rc-strands");
  // One motif: one stranded pair of profile tracks (plus, minus).
  REQUIRE(run({"simulate", "--simulation", "chip_nexus_profile", "--motifs", "TAL1_known4",
               "--contigs", "3", "--contig-length", "20000", "--peaks", "10", "--window", "200",
               "--out", dir.str("sim")})
              .status == 0);
  const std::string sim = dir.str("sim") + "/";
  // Per-strand log counts (B, 2) from a small trunk.
  write_text(dir.path() / "model.json", R"({"model": {
    "nodes": [
      {"name": "conv", "type": "Conv1D", "filters": 8, "kernel_size": 11, "inputs": ["sequence"]},
      {"name": "relu", "type": "ReLU"},
      {"name": "pool", "type": "GlobalAvgPool1D"},
      {"name": "counts", "type": "Dense", "units": "profile_tracks"}],
    "outputs": [{"name": "counts", "node": "counts", "loss": "mse", "target": "log_counts"}]}})");
  const CliResult trained = run({"train",
                                 "--config",
                                 dir.str("model.json"),
                                 "--format",
                                 "narrowpeak",
                                 "--fasta",
                                 sim + "genome.fa",
                                 "--intervals",
                                 sim + "train.narrowPeak",
                                 "--window",
                                 "200",
                                 "--profile-bigwigs",
                                 sim + "TAL1_known4.plus.bw," + sim + "TAL1_known4.minus.bw",
                                 "--no-early-stopping",
                                 "--epochs",
                                 "2",
                                 "--threads",
                                 "1",
                                 "--output-dir",
                                 dir.str("runs"),
                                 "--run-name",
                                 "r"});
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  const auto predict = [&](const std::string& fasta, bool rc_average, const std::string& out) {
    std::vector<std::string> args = {"predict", "--model", dir.str("runs/r"), "--fasta",
                                     fasta,     "--out",   dir.str(out)};
    if (rc_average) args.push_back("--rc-average");
    const CliResult result = run(args);
    REQUIRE_MESSAGE(result.status == 0, result.err);
    return scores(testing::read_text(dir.path() / out), 2);
  };
  // Copies: predict writes an index next to its FASTA.
  for (const char* name : {"ce_windows.fa", "ce_windows_rc.fa"}) {
    std::filesystem::copy_file(fixture(name), dir.path() / name);
  }
  const auto forward = predict(dir.str("ce_windows.fa"), false, "forward.tsv");
  const auto reverse = predict(dir.str("ce_windows_rc.fa"), false, "reverse.tsv");
  const auto averaged = predict(dir.str("ce_windows.fa"), true, "averaged.tsv");
  REQUIRE(forward.size() == 4);
  REQUIRE(reverse.size() == 4);
  REQUIRE(averaged.size() == 4);
  bool strands_differ = false;
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    // Plus of the average: the forward plus and the reverse complement's minus; and vice versa.
    CHECK(averaged[i][0] == doctest::Approx((forward[i][0] + reverse[i][1]) / 2).epsilon(1e-6));
    CHECK(averaged[i][1] == doctest::Approx((forward[i][1] + reverse[i][0]) / 2).epsilon(1e-6));
    strands_differ = strands_differ || std::abs(reverse[i][0] - reverse[i][1]) > 1e-4;
  }
  // Otherwise the swap would go unseen.
  CHECK(strands_differ);

  // Issue 38: `strand variants --rc-average` kept the old rule (plus with plus) and differed from
  // predict by up to 0.128. Its REF columns now equal predict --rc-average on the same windows:
  // a SNV at 1-based p has the window [p - 101, p + 99) (docs/variants.md).
  std::string contig, line;
  std::istringstream genome(testing::read_text(sim + "genome.fa"));
  std::getline(genome, line);
  const std::string name = line.substr(1, line.find_first_of(" \t") - 1);
  while (std::getline(genome, line) && !line.starts_with(">")) contig += line;
  std::string vcf = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
  std::string bed;
  for (int64_t p = 1000; p <= 19000; p += 3000) {
    const char ref = contig[static_cast<size_t>(p - 1)];
    vcf += fmt::format("{}\t{}\t.\t{}\t{}\t.\t.\t.\n", name, p, ref, ref == 'A' ? 'C' : 'A');
    bed += fmt::format("{}\t{}\t{}\n", name, p - 101, p + 99);
  }
  write_text(dir.path() / "snv.vcf", vcf);
  write_text(dir.path() / "snv.bed", bed);
  const CliResult variants =
      run({"variants", "--model", dir.str("runs/r"), "--fasta", sim + "genome.fa", "--vcf",
           dir.str("snv.vcf"), "--rc-average", "--out", dir.str("v.tsv")});
  REQUIRE_MESSAGE(variants.status == 0, variants.err);
  const CliResult windows =
      run({"predict", "--model", dir.str("runs/r"), "--fasta", sim + "genome.fa", "--intervals",
           dir.str("snv.bed"), "--format", "bed", "--rc-average", "--out", dir.str("w.tsv")});
  REQUIRE_MESSAGE(windows.status == 0, windows.err);
  const auto predicted = scores(testing::read_text(dir.path() / "w.tsv"), 2);
  // The variants table: id chrom pos ref alt, then ref, alt, diff (and log2fc) per track.
  const auto rows = testing::tsv_rows(testing::read_text(dir.path() / "v.tsv"));
  REQUIRE(rows.size() == predicted.size() + 1);
  std::vector<size_t> ref_columns;
  for (size_t c = 0; c < rows[0].size(); ++c) {
    if (rows[0][c].ends_with(".ref")) ref_columns.push_back(c);
  }
  REQUIRE(ref_columns.size() == 2);
  for (size_t i = 0; i < predicted.size(); ++i) {
    CAPTURE(i);
    for (size_t t = 0; t < 2; ++t) {
      CHECK(std::stod(rows[i + 1][ref_columns[t]]) ==
            doctest::Approx(predicted[i][t]).epsilon(1e-5));
    }
  }
}

}  // namespace strand::cli
