// `strand negatives` on a real genome (tests/data/fixtures/genomes/ce.fa), negatives drawn at
// training time (data.negatives_ratio), and `strand prepare` from positive/negative FASTAs to a
// dataset that trains with the command it prints (issue 14).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
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
using testing::with;
using testing::write_text;

std::string source_dir() {
  const char* env = std::getenv("STRAND_SOURCE_DIR");
  return env != nullptr ? env : STRAND_SOURCE_DIR;
}

// ce.fa and its index copied into dir; 40 narrowPeak peaks on chromosome I with summits; a
// blacklist of its first 100 kb.
void write_peaks(const TempDir& dir) {
  const std::string genomes = source_dir() + "/tests/data/fixtures/genomes/";
  std::filesystem::copy_file(genomes + "ce.fa", dir.path() / "ce.fa");
  std::filesystem::copy_file(genomes + "ce.fa.fai", dir.path() / "ce.fa.fai");
  std::string peaks;
  for (int i = 0; i < 40; ++i) {
    const int start = 150'000 + i * 20'000;
    peaks += fmt::format("CHROMOSOME_I\t{}\t{}\tpeak{}\t0\t.\t5.0\t-1\t-1\t{}\n", start,
                         start + 300, i, 40 + i);
  }
  write_text(dir.path() / "ctcf.narrowPeak", peaks);
  write_text(dir.path() / "bl.bed", "CHROMOSOME_I\t0\t100000\n");
}

struct Region {
  std::string contig;
  int64_t start = 0;
  int64_t end = 0;
};

std::vector<Region> bed_regions(const std::string& text) {
  std::vector<Region> regions;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Region r;
    fields >> r.contig >> r.start >> r.end;
    regions.push_back(r);
  }
  return regions;
}

std::vector<std::string> negatives_args(const TempDir& dir, const std::string& seed) {
  return {"negatives",
          "--fasta",
          dir.str("ce.fa"),
          "--peaks",
          dir.str("ctcf.narrowPeak"),
          "--blacklist",
          dir.str("bl.bed"),
          "--window",
          "500",
          "--ratio",
          "2",
          "--seed",
          seed,
          "--out",
          dir.str("neg" + seed + ".bed")};
}

TEST_CASE("negatives: a BED of GC-matched windows away from peaks and blacklist, fixed by a seed") {
  TempDir dir("negatives");
  write_peaks(dir);
  const CliResult result =
      run(with(negatives_args(dir, "5"), {"--labelled-out", dir.str("labelled.bed")}));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("40 peaks, 80 negatives of 500 bp") != std::string::npos);
  CHECK(result.out.find("strand train --fasta") != std::string::npos);
  const std::vector<Region> negatives = bed_regions(read_text(dir.path() / "neg5.bed"));
  REQUIRE(negatives.size() == 80);
  for (const Region& n : negatives) {
    CAPTURE(n.start);
    CHECK(n.end - n.start == 500);
    if (n.contig != "CHROMOSOME_I") continue;
    CHECK(n.start >= 100'000);  // the blacklist
    for (int i = 0; i < 40; ++i) {
      const int64_t summit = 150'000 + i * 20'000 + 40 + i;
      // Neither the peak nor its 500 bp window around the summit.
      CHECK((n.end <= summit - 250 || n.start >= summit + 250));
    }
  }
  // The labelled BED names its task after the peak file and trains directly.
  const std::string labelled = read_text(dir.path() / "labelled.bed");
  CHECK(labelled.rfind("#chrom\tstart\tend\tctcf\n", 0) == 0);
  CHECK(count_lines(labelled) == 1 + 120);
  const CliResult inspected = run({"inspect", "--fasta", dir.str("ce.fa"), "--intervals",
                                   dir.str("labelled.bed"), "--window", "500"});
  REQUIRE_MESSAGE(inspected.status == 0, inspected.err);
  CHECK(inspected.out.find("tasks (1): ctcf\n") != std::string::npos);
  CHECK(inspected.out.find("train             120        0.3333") != std::string::npos);
  // The same seed writes the same file; another seed another.
  REQUIRE(run(negatives_args(dir, "5")).status == 0);  // rewrites neg5.bed
  CHECK(bed_regions(read_text(dir.path() / "neg5.bed")).size() == 80);
  const std::string first = read_text(dir.path() / "neg5.bed");
  REQUIRE(run(negatives_args(dir, "5")).status == 0);
  CHECK(read_text(dir.path() / "neg5.bed") == first);
  REQUIRE(run(negatives_args(dir, "6")).status == 0);
  CHECK(read_text(dir.path() / "neg6.bed") != first);
}

TEST_CASE("negatives: bad input fails naming the flag or file and writes nothing") {
  TempDir dir("negatives-errors");
  write_peaks(dir);
  // The negatives command with flag `more[0]` set to `more[1]` (replaced or added).
  const auto fails = [&](const std::vector<std::string>& more, const std::string& expected) {
    std::vector<std::string> args = negatives_args(dir, "1");
    const auto flag = std::find(args.begin(), args.end(), more[0]);
    if (flag != args.end()) {
      *(flag + 1) = more[1];
    } else {
      args.insert(args.end(), more.begin(), more.end());
    }
    const CliResult result = run(args);
    CHECK(result.status == 1);
    CHECK_MESSAGE(result.err.find(expected) != std::string::npos, result.err);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "neg1.bed"));
  };
  fails({"--ratio", "0"}, "--ratio: must be in (0, 1000]");
  fails({"--ratio", "900"}, "36000 negatives are wanted (900 per peak for 40 peaks) but only");
  write_text(dir.path() / "hg.bed", "chr1\t0\t100\n");
  fails({"--blacklist", dir.str("hg.bed")}, "none of its 1 regions lies on a contig of FASTA");
  fails({"--chroms", "chrI"}, "contig 'chrI' to draw negatives from is not in FASTA");
  write_text(dir.path() / "off.bed", "CHROMOSOME_II\t4000\t6000\n");
  fails({"--peaks", dir.str("off.bed")}, "end 6000 is past the end of contig 'CHROMOSOME_II'");
}

TEST_CASE("training draws negatives for a peak file: data.negatives_ratio and data.blacklist") {
  TempDir dir("negatives-train");
  write_peaks(dir);
  const std::vector<std::string> args = {"inspect",
                                         "--fasta",
                                         dir.str("ce.fa"),
                                         "--intervals",
                                         dir.str("ctcf.narrowPeak"),
                                         "--format",
                                         "narrowpeak",
                                         "--window",
                                         "500",
                                         "--negatives-ratio",
                                         "1",
                                         "--blacklist",
                                         dir.str("bl.bed"),
                                         "--valid-fraction",
                                         "0.25"};
  const CliResult result = run(args);
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("1 GC-matched negatives per peak") != std::string::npos);
  CHECK(result.out.find("tasks (1): ctcf\n") != std::string::npos);
  CHECK(result.out.find("train              60        0.5000") != std::string::npos);
  CHECK(result.out.find("validation         20        0.5000") != std::string::npos);
  const CliResult columns = run(with(args, {"--label-columns", "7"}));
  CHECK(columns.status == 1);
  CHECK(columns.err.find("data.negatives_ratio and data.label_columns: ") != std::string::npos);
  const CliResult blacklist_alone =
      run({"inspect", "--fasta", dir.str("ce.fa"), "--intervals", dir.str("ctcf.narrowPeak"),
           "--format", "narrowpeak", "--blacklist", dir.str("bl.bed")});
  CHECK(blacklist_alone.status == 1);
  CHECK(blacklist_alone.err.find("data.blacklist: a blacklist keeps negatives away") !=
        std::string::npos);
}

// `count` records of `length` bases named s0, s1, ... in dir/name.
void write_records(const TempDir& dir, const std::string& name, int count, int length,
                   uint64_t seed) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    text += fmt::format(">s{}\n", i);
    for (int k = 0; k < length; ++k) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      text += "ACGT"[(seed >> 33) % 4];
    }
    text += '\n';
  }
  write_text(dir.path() / name, text);
}

// The command `strand prepare` printed after "train on it with:", without "strand".
std::vector<std::string> printed_command(const std::string& out) {
  const size_t at = out.find("train on it with:\n  strand ");
  REQUIRE(at != std::string::npos);
  std::istringstream in(out.substr(at + 27, out.find('\n', at + 20) - at - 27));
  std::vector<std::string> args;
  std::string word;
  while (in >> word) args.push_back(word);
  return args;
}

TEST_CASE("prepare: positives and negatives become a records dataset that trains as printed") {
  TempDir dir("prepare");
  write_records(dir, "pos.fa", 30, 60, 1);
  write_records(dir, "neg.fa", 50, 60, 2);
  const CliResult prepared = run({"prepare", "--positives", dir.str("pos.fa"), "--negatives",
                                  dir.str("neg.fa"), "--out", dir.str("data")});
  REQUIRE_MESSAGE(prepared.status == 0, prepared.err);
  const std::string labels = read_text(dir.path() / "data" / "labels.tsv");
  CHECK(labels.rfind("name\tpos\npos:s0\t1\n", 0) == 0);  // names repeat: FILE_STEM:NAME
  CHECK(count_lines(labels) == 1 + 80);
  CHECK(read_text(dir.path() / "data" / "sequences.fa").rfind(">pos:s0\n", 0) == 0);
  const CliResult trained =
      run(with(printed_command(prepared.out),
               {"--epochs", "1", "--threads", "1", "--output-dir", dir.str("runs")}));
  CHECK_MESSAGE(trained.status == 0, trained.err);
  CHECK(trained.out.find("train 64, validation 8, test 8") != std::string::npos);
}

TEST_CASE("prepare: several positives files are several tasks, split by fractions") {
  TempDir dir("prepare-tasks");
  write_records(dir, "ctcf.fa", 40, 50, 1);
  write_records(dir, "jun.fa", 20, 50, 2);
  std::string other;  // distinct names: kept as they are
  for (int i = 0; i < 20; ++i)
    other += fmt::format(">bg{}\n{}\n", i, std::string(50, "ACGT"[i % 4]));
  write_text(dir.path() / "bg.fa", other);
  const CliResult prepared =
      run({"prepare", "--positives", dir.str("ctcf.fa") + "," + dir.str("jun.fa"), "--out",
           dir.str("d"), "--valid-fraction", "0.25", "--test-fraction", "0.25", "--seed", "2"});
  REQUIRE_MESSAGE(prepared.status == 0, prepared.err);
  CHECK(prepared.out.find("(the model's last Dense layer needs units 2") != std::string::npos);
  const std::string train = read_text(dir.path() / "d" / "train.tsv");
  CHECK(train.rfind("name\tctcf\tjun\n", 0) == 0);
  CHECK(count_lines(train) == 1 + 30);
  CHECK(count_lines(read_text(dir.path() / "d" / "valid.tsv")) == 1 + 15);
  CHECK(count_lines(read_text(dir.path() / "d" / "test.tsv")) == 1 + 15);
  const std::string all =
      train + read_text(dir.path() / "d" / "valid.tsv") + read_text(dir.path() / "d" / "test.tsv");
  CHECK(all.find("\njun:s3\t0\t1\n") != std::string::npos);  // positive for its task only
  CHECK(all.find("\nctcf:s3\t1\t0\n") != std::string::npos);
  const CliResult kept = run({"prepare", "--positives", dir.str("ctcf.fa"), "--negatives",
                              dir.str("bg.fa"), "--task-names", "CTCF", "--out", dir.str("k")});
  REQUIRE_MESSAGE(kept.status == 0, kept.err);
  CHECK(read_text(dir.path() / "k" / "labels.tsv").rfind("name\tCTCF\ns0\t1\n", 0) == 0);
}

TEST_CASE("prepare: bad input fails naming the flag or file and leaves no directory") {
  TempDir dir("prepare-errors");
  write_records(dir, "pos.fa", 10, 40, 1);
  write_records(dir, "1x.fa", 10, 40, 2);
  const auto fails = [&](const std::vector<std::string>& args, const std::string& expected) {
    const CliResult result = run(args);
    CHECK(result.status == 1);
    CHECK_MESSAGE(result.err.find(expected) != std::string::npos, result.err);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "out"));
  };
  fails({"prepare", "--positives", dir.str("pos.fa"), "--out", dir.str("out")},
        "--negatives: one task needs a FASTA of negatives");
  fails({"prepare", "--positives", dir.str("pos.fa") + "," + dir.str("1x.fa"), "--out",
         dir.str("out")},
        "task name '1x' (of '");
  fails({"prepare", "--positives", dir.str("pos.fa"), "--negatives", dir.str("missing.fa"), "--out",
         dir.str("out")},
        "missing.fa");
  fails(
      {"prepare", "--positives", dir.str("pos.fa"), "--negatives", dir.str("1x.fa"),
       "--valid-fraction", "0.7", "--test-fraction", "0.3", "--out", dir.str("out")},
      "--valid-fraction 0.7 and --test-fraction 0.3: each must be in [0, 1) and their sum below 1");
}

}  // namespace
}  // namespace strand::cli
