// `strand predict` on bad input: flags out of range, an interval file given as records, broken
// checkpoints and non-finite scores, and the table on standard output.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "cli_test_support.h"
#include "cuda/cuda_test_support.h"
#include "io/safetensors.h"
#include "tensor/cuda_runtime.h"

namespace strand::cli {
namespace {

using testing::count_lines;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::write_text;

// A FASTA of `length` bases per record, a repeating ACGT pattern shifted per record.
void write_fasta(const std::filesystem::path& path,
                 const std::vector<std::pair<std::string, int64_t>>& records) {
  std::string text;
  int shift = 0;
  for (const auto& [name, length] : records) {
    text += ">" + name + "\n";
    for (int64_t i = 0; i < length; ++i) {
      text += "ACGT"[(i * 7 + shift + i / 3) % 4];
      if (i % 60 == 59 || i + 1 == length) text += "\n";
    }
    ++shift;
  }
  write_text(path, text);
}

// Rewrites float tensor `name` of a checkpoint as `value` everywhere into `out`.
void write_with_tensor_value(const std::filesystem::path& in, const std::filesystem::path& out,
                             const std::string& name, float value) {
  io::SafetensorsFile file = io::read_safetensors(in);
  bool found = false;
  for (io::SafetensorsEntry& entry : file.entries) {
    if (entry.name != name) continue;
    REQUIRE(entry.dtype == "F32");
    for (size_t i = 0; i < entry.data.size(); i += sizeof(float)) {
      std::memcpy(entry.data.data() + i, &value, sizeof(float));
    }
    found = true;
  }
  REQUIRE_MESSAGE(found, "no tensor " << name);
  io::write_safetensors(out, file.entries, file.metadata);
}

TEST_CASE("predict: a negative --window, --batch-size 0 or --threads -1 is an error naming it") {
  TempDir dir("predict-flags");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  write_fasta(dir.path() / "g.fa", {{"chr1", 1000}});
  write_text(dir.path() / "a.bed", "chr1\t100\t200\t1\n");
  const std::vector<std::string> base = {"predict",        "--model",       dir.str("r"),
                                         "--fasta",        dir.str("g.fa"), "--intervals",
                                         dir.str("a.bed"), "--out",         dir.str("s.tsv")};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    return run(args);
  };
  const auto negative = with({"--window", "-5"});
  CHECK(negative.status == 1);
  CHECK(negative.err.find("--window: must be >= 1") != std::string::npos);
  CHECK(negative.err.find("-5") != std::string::npos);
  // Intervals need a window of at least a base; 0 only means "common length" for records.
  const auto zero = with({"--window", "0"});
  CHECK(zero.status == 1);
  CHECK(zero.err.find("--window") != std::string::npos);
  const auto batch = with({"--batch-size", "0"});
  CHECK(batch.status == 1);
  CHECK(batch.err.find("--batch-size") != std::string::npos);
  const auto threads = with({"--threads", "-1"});
  CHECK(threads.status == 1);
  CHECK(threads.err.find("--threads") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "s.tsv"));
  // The window that was ignored before now applies: 100 bp windows around each interval.
  const auto ok = with({"--window", "100"});
  REQUIRE_MESSAGE(ok.status == 0, ok.err);
  CHECK(read_text(dir.path() / "s.tsv").find("chr1:100-200\tchr1\t100\t200\t1\t") !=
        std::string::npos);
}

TEST_CASE("predict: --format records on a BED file is refused, a two-label records file is not") {
  TempDir dir("predict-records");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  write_fasta(dir.path() / "g.fa", {{"chr1", 1000}, {"chr2", 500}, {"r1", 100}, {"r2", 100}});
  write_text(dir.path() / "a.bed", "chr1\t100\t200\t1\nchr1\t300\t400\t0\nchr2\t10\t110\t1\n");
  const auto as_records =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"), "--intervals",
           dir.str("a.bed"), "--format", "records", "--out", dir.str("s.tsv")});
  CHECK(as_records.status == 1);
  CHECK(as_records.err.find("looks like an interval file") != std::string::npos);
  CHECK(as_records.err.find("a.bed") != std::string::npos);
  CHECK(as_records.err.find("--format bed") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "s.tsv"));
  // A track line alone is enough to tell, even with one interval per contig.
  write_text(dir.path() / "t.bed", "track name=peaks\nchr1\t100\t101\t1\n");
  const auto track =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"), "--intervals",
           dir.str("t.bed"), "--format", "records", "--out", dir.str("s.tsv")});
  CHECK(track.status == 1);
  CHECK(track.err.find("looks like an interval file") != std::string::npos);
  // The same file as BED scores 100 bp windows named by their coordinates.
  const auto as_bed =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"), "--intervals",
           dir.str("a.bed"), "--format", "bed", "--window", "100", "--out", dir.str("s.tsv")});
  REQUIRE_MESSAGE(as_bed.status == 0, as_bed.err);
  const std::string table = read_text(dir.path() / "s.tsv");
  CHECK(count_lines(table) == 1 + 3);
  CHECK(table.find("chr2:10-110\tchr2\t10\t110\t1\t") != std::string::npos);
  // Records with two 0/1 label columns are not mistaken for intervals.
  write_text(dir.path() / "labels.tsv", "r1\t0\t1\nr2\t1\t0\n");
  const auto records =
      run({"predict", "--model", dir.str("r"), "--fasta", dir.str("g.fa"), "--intervals",
           dir.str("labels.tsv"), "--format", "records", "--out", dir.str("rec.tsv")});
  REQUIRE_MESSAGE(records.status == 0, records.err);
  const std::string rec = read_text(dir.path() / "rec.tsv");
  CHECK(rec.rfind(
            "name\tchrom\tstart\tend\tlabel_task_0\tlabel_task_1\ttask_0\nr1\tr1\t0\t100\t0\t1\t",
            0) == 0);
}

TEST_CASE("predict: a checkpoint with NaN or infinite weights is refused naming the tensor") {
  TempDir dir("predict-nan");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  const auto checkpoints = dir.path() / "r" / "checkpoints";
  for (const float bad :
       {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
    write_with_tensor_value(checkpoints / "last.safetensors", checkpoints / "bad.safetensors",
                            "3.bias", bad);
    const auto result = run({"predict", "--model", (checkpoints / "bad.safetensors").string(),
                             "--out", dir.str("s.tsv")});
    CHECK(result.status == 1);
    CHECK(result.err.find("tensor '3.bias' holds") != std::string::npos);
    CHECK(result.err.find(std::isnan(bad) ? "nan" : "-inf") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "s.tsv"));
  }
}

TEST_CASE("predict: finite weights that overflow to non-finite scores fail without a table") {
  TempDir dir("predict-overflow");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  const auto checkpoints = dir.path() / "r" / "checkpoints";
  // 15 taps of 3e38 overflow float32 to +inf; the Dense layer's mixed signs make inf - inf.
  write_with_tensor_value(checkpoints / "last.safetensors", checkpoints / "big.safetensors",
                          "0.weight", 3e38F);
  const auto result = run({"predict", "--model", (checkpoints / "big.safetensors").string(),
                           "--out", dir.str("s.tsv")});
  CHECK(result.status == 1);
  CHECK(result.err.find("the model scored sample") != std::string::npos);
  CHECK(result.err.find("nothing written") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "s.tsv"));
}

TEST_CASE("predict: --out - writes the table to standard output and messages to stderr") {
  TempDir dir("predict-stdout");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  std::filesystem::remove("-");
  const auto result = run({"predict", "--model", dir.str("r"), "--out", "-", "--threads", "1"});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.rfind("name\tchrom\tstart\tend\tlabel_task_0\ttask_0\nseq", 0) == 0);
  CHECK(count_lines(result.out) == 1 + 80);
  CHECK(result.err.find("predict: 80 samples") != std::string::npos);
  CHECK(result.err.find("to standard output") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists("-"));
}

TEST_CASE("predict: --device cuda is refused, with the reason, where no GPU is usable") {
  if (cuda_usable()) STRAND_SKIP("a CUDA device is usable here: the GPU comparison runs instead");
  TempDir dir("predict-no-gpu");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  const auto result = run({"predict", "--model", dir.str("r"), "--out", dir.str("p.tsv"),
                           "--device", "cuda", "--threads", "1"});
  CHECK(result.status != 0);
  CHECK(result.err.find("error: --device: 'cuda' requested, but " + cuda_unusable_reason()) == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "p.tsv"));
}

TEST_CASE("predict: on the GPU, the same table as the CPU's") {
  STRAND_REQUIRE_GPU();
  TempDir dir("predict-gpu");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  std::vector<std::string> tables;
  for (const char* device : {"cpu", "cuda"}) {
    const auto result = run({"predict", "--model", dir.str("r"), "--out", dir.str("p.tsv"),
                             "--device", device, "--threads", "1"});
    REQUIRE_MESSAGE(result.status == 0, result.err);
    tables.push_back(read_text(dir.path() / "p.tsv"));
  }
  CHECK(testing::tables_agree(tables[0], tables[1], 1e-4));
}

}  // namespace
}  // namespace strand::cli
