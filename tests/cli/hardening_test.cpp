// Issue 23 (hardening, round 2), the command line: each case is the issue's reproducer, which
// crashed, gave a silent result or a late or unclear error before. Deeply nested configs, run
// names and output paths, resumes of edited runs, tasks that cannot be scored, jitter beyond the
// window, trailing commas, out-of-range numbers, directories given as files, labelled peaks.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "fmt/format.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::with;
using testing::write_text;

// `strand train` on the three-task data of write_three_task_data (chr8 validates).
std::vector<std::string> three_task_train(const TempDir& dir, const std::string& name,
                                          int epochs = 1) {
  return {"train",
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
          "--epochs",
          std::to_string(epochs),
          "--batch-size",
          "16",
          "--threads",
          "1",
          "--output-dir",
          dir.str("runs"),
          "--run-name",
          name};
}

// A config nesting `levels` objects (with the top-level one) under the unknown key "zz".
std::string nested_config(int levels) {
  std::string text = R"({"zz": )";
  for (int i = 1; i < levels; ++i) text += R"({"a": )";
  text += "1";
  for (int i = 0; i < levels; ++i) text += "}";
  return text;
}

}  // namespace

TEST_CASE("hardening: a config nested 100,000 deep is refused by train, summary and inspect") {
  TempDir dir("nesting");
  write_text(dir.path() / "unknown.json", nested_config(100000));
  write_text(dir.path() / "folds.json", R"({"data": {"source": "files", "folds": )" +
                                            std::string(100000, '[') + std::string(100000, ']') +
                                            "}}");
  for (const char* file : {"unknown.json", "folds.json"}) {
    for (const char* command : {"train", "summary", "inspect"}) {
      CAPTURE(file);
      CAPTURE(command);
      const CliResult result = run({command, "--config", dir.str(file)});
      CHECK(result.status == 1);
      CHECK(result.err ==
            fmt::format("error: config file '{}': nesting deeper than 64 levels of objects and "
                        "arrays (a config nests at most a few; strand refuses deeper JSON before "
                        "reading it)\n",
                        dir.str(file)));
    }
  }
  // The limit is 64 levels: at 64 the config is read (and its unknown key named).
  write_text(dir.path() / "at_limit.json", nested_config(64));
  CHECK(run({"summary", "--config", dir.str("at_limit.json")}).err.find("zz: unknown key") !=
        std::string::npos);
  write_text(dir.path() / "past_limit.json", nested_config(65));
  CHECK(run({"summary", "--config", dir.str("past_limit.json")}).err.find("deeper than 64") !=
        std::string::npos);
}

// Found by fuzz/fuzz_config (corpus: nul_byte_ends_json.json): nlohmann reads a NUL byte as the
// end of its input, so the keys after it were dropped unread.
TEST_CASE("hardening: a config with a NUL byte is refused, not read up to it") {
  TempDir dir("nul");
  write_text(dir.path() / "nul.json", std::string(R"({"epochs": 5})") + '\0' + R"({"epochs": 7})");
  const CliResult result = run({"train", "--config", dir.str("nul.json"), "--print-config"});
  CHECK(result.status == 1);
  CHECK(result.err == fmt::format("error: config file '{}' holds a NUL byte at offset 13; a "
                                  "config is JSON text (a binary or damaged file?)\n",
                                  dir.str("nul.json")));
}

TEST_CASE("hardening: a run name is one directory inside output_dir") {
  TempDir dir("run-names");
  const fs::path output = dir.path() / "out" / "runs";
  for (const std::string& name : std::vector<std::string>{
           "../../escape", "..", ".", (dir.path() / "abs").string(), "a/b", "a\nb"}) {
    CAPTURE(name);
    const CliResult result = run({"train", "--epochs", "1", "--n-pos", "50", "--n-neg", "50",
                                  "--length", "50", "--validation", "20", "--test", "20",
                                  "--output-dir", output.string(), "--run-name", name});
    CHECK(result.status == 1);
    CHECK(result.err ==
          fmt::format("error: --run-name: '{}' is not a run name: a run name is one directory "
                      "name of printable characters, made inside output_dir (no '/', not '.' or "
                      "'..'); choose where runs go with --output-dir\n",
                      name));
  }
  // Nothing was written anywhere.
  CHECK_FALSE(fs::exists(dir.path() / "escape"));
  CHECK_FALSE(fs::exists(dir.path() / "abs"));
  CHECK_FALSE(fs::exists(dir.path() / "out"));
}

TEST_CASE("hardening: every output path is checked before the work") {
  TempDir dir("outputs");
  testing::write_three_task_data(dir);
  REQUIRE(run(three_task_train(dir, "r")).status == 0);
  // predict --tile into a directory that does not exist: refused before a window is scored (the
  // "predict: N samples" line comes just before the scoring).
  const std::string missing = dir.str("missing/tiles.bedgraph");
  const CliResult tiles = run({"predict", "--model", dir.str("runs/r"), "--fasta", dir.str("g.fa"),
                               "--tile", "chr1", "--task", "CTCF", "--out", missing});
  CHECK(tiles.status == 1);
  CHECK(tiles.err == fmt::format("error: --out: cannot write '{}': directory '{}' does not exist\n",
                                 missing, dir.str("missing")));
  CHECK(tiles.out.find("predict:") == std::string::npos);
  CHECK(
      run({"predict", "--model", dir.str("runs/r"), "--fasta", dir.str("g.fa"), "--out", dir.str()})
          .err == fmt::format("error: --out: '{}' is a directory; give the path of a file to "
                              "write\n",
                              dir.str()));
  // negatives, prepare and simulate.
  write_text(dir.path() / "peaks.bed", "chr1\t100\t200\nchr2\t500\t600\n");
  CHECK(run({"negatives", "--fasta", dir.str("g.fa"), "--peaks", dir.str("peaks.bed"), "--window",
             "100", "--out", dir.str("nowhere/n.bed")})
            .err.starts_with("error: --out: cannot write"));
  CHECK(run({"negatives", "--fasta", dir.str("g.fa"), "--peaks", dir.str("peaks.bed"), "--window",
             "100", "--out", dir.str("n.bed"), "--labelled-out", dir.str("./n.bed")})
            .err == "error: --labelled-out: must be another file than --out\n");
  CHECK(run({"prepare", "--fasta", dir.str("g.fa"), "--peaks", dir.str("peaks.bed"), "--out",
             dir.str("g.fa")})
            .err == fmt::format("error: --out: '{}' is a file, not a directory; give a "
                                "directory to write into\n",
                                dir.str("g.fa")));
  CHECK(run({"simulate", "--out", dir.str("g.fa")}).err.starts_with("error: --out: '"));
}

TEST_CASE("hardening: resume refuses an edited config.json or changed data, naming them") {
  TempDir dir("resume-edit");
  testing::write_three_task_data(dir);
  const CliResult first = run(with(three_task_train(dir, "r", 3), {"--stop-after-epochs", "1"}));
  REQUIRE_MESSAGE(first.status == 0, first.err);
  const fs::path config = dir.path() / "runs" / "r" / "config.json";
  const std::string original = read_text(config);
  const std::string last = dir.str("runs/r/checkpoints/last.safetensors");
  // The window edited from 100 to 150.
  nlohmann::json edited = nlohmann::json::parse(original);
  edited["data"]["window"] = 150;
  write_text(config, edited.dump(2));
  const CliResult window = run({"train", "--resume", dir.str("runs/r")});
  CHECK(window.status == 1);
  CHECK(window.err ==
        fmt::format("error: --resume: the run's config.json or data differ from what checkpoint "
                    "'{}' was trained with, so the next epochs would train on something else:\n"
                    "  data.window: 100 when the run started, 150 now\n"
                    "Restore them (only --epochs and --threads may change on a resume), or start "
                    "a new run from these weights with --init-weights {}\n",
                    last, last));
  write_text(config, original);
  // The intervals edited in place.
  const std::string bed = read_text(dir.path() / "tasks.bed");
  write_text(dir.path() / "tasks.bed", bed + "chr2\t2800\t2900\tpeakx\t1\t1\t0\n");
  const CliResult intervals = run({"train", "--resume", dir.str("runs/r")});
  CHECK(intervals.status == 1);
  CHECK(intervals.err.find(fmt::format("  data.intervals: '{}' changed since the run started "
                                       "(size {}, crc32c ",
                                       dir.str("tasks.bed"), bed.size())) != std::string::npos);
  // The same file moved, and config.json pointed at it: the same data, so the run continues.
  write_text(dir.path() / "tasks.bed", bed);
  fs::rename(dir.path() / "tasks.bed", dir.path() / "moved.bed");
  nlohmann::json moved = nlohmann::json::parse(original);
  moved["data"]["intervals"] = dir.str("moved.bed");
  write_text(config, moved.dump(2));
  const CliResult resumed = run({"train", "--resume", dir.str("runs/r")});
  CHECK_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(nlohmann::json::parse(read_text(dir.path() / "runs" / "r" / "report.json"))["status"] ==
        "completed");
}

TEST_CASE("hardening: tasks that cannot be scored are named at load and in report.json") {
  TempDir dir("unscored");
  testing::write_three_task_data(dir);
  // JUN is '.' or 1 (no negative), POLR2A 'NA' or 0 (no positive); make POLR2A all missing on
  // chr8, the validation chromosome.
  std::string bed = read_text(dir.path() / "tasks.bed");
  std::string edited;
  for (size_t start = 0; start < bed.size();) {
    const size_t end = bed.find('\n', start);
    std::string line = bed.substr(start, end - start);
    if (line.starts_with("chr8\t")) line = line.substr(0, line.rfind('\t')) + "\tNA";
    edited += line + "\n";
    start = end + 1;
  }
  write_text(dir.path() / "tasks.bed", edited);
  const CliResult result = run(three_task_train(dir, "u"));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.err.find("warning: the validation split's task 'JUN' cannot be scored: no "
                        "negative label (its 20 label(s) are all 1); its auROC and auPRC are "
                        "undefined (null in report.json, listed under unscored_tasks) and the "
                        "means over tasks leave it out\n") != std::string::npos);
  CHECK(result.err.find("warning: the validation split's task 'POLR2A' cannot be scored: every "
                        "label is missing (NA, nan or .)") != std::string::npos);
  CHECK(result.err.find("warning: the training split's task 'POLR2A' has nothing to learn: no "
                        "positive label") != std::string::npos);
  const nlohmann::json report =
      nlohmann::json::parse(read_text(dir.path() / "runs" / "u" / "report.json"));
  CHECK(report["unscored_tasks"] ==
        nlohmann::json{{"validation",
                        {{"JUN", "no negative label (its 20 label(s) are all 1)"},
                         {"POLR2A", "every label is missing (NA, nan or .)"}}}});
  CHECK(report["validation"]["tasks"]["JUN"]["auroc"].is_null());
  CHECK(result.out.find("not scored: validation task 'JUN': no negative label") !=
        std::string::npos);
}

TEST_CASE("hardening: jitter is bounded by half the window") {
  TempDir dir("jitter");
  testing::write_three_task_data(dir);
  const std::vector<std::string> flags = {
      "train",           "--fasta", dir.str("g.fa"), "--intervals", dir.str("tasks.bed"),
      "--label-columns", "5",       "--window",      "100",         "--print-config"};
  CHECK(run(with(flags, {"--jitter", "50"})).status == 0);
  const CliResult far = run(with(flags, {"--jitter", "10000"}));
  CHECK(far.status == 1);
  CHECK(far.err ==
        "error: data.jitter: 10000 is more than half the 100-base window (50): a shifted window "
        "would no longer hold its interval's centre\n");
  // Records of window 0 take their common length (60 here), known once they are read.
  testing::simulate_small_dataset(dir);
  const CliResult records =
      run({"inspect", "--format", "records", "--fasta", dir.str("sim/train.fa"), "--intervals",
           dir.str("sim/train.tsv"), "--window", "0", "--jitter", "31"});
  CHECK(records.status == 1);
  CHECK(records.err.find("data.jitter: 31 is more than half the 60-base window (30)") !=
        std::string::npos);
}

TEST_CASE("hardening: a trailing comma in a bigWig list is an error, from a flag or a config") {
  TempDir dir("trailing-comma");
  testing::write_three_task_data(dir);
  const std::string bigwig = dir.str("plus.bw");
  const std::vector<std::string> flags = {
      "train",        "--format",           "bed",      "--fasta", dir.str("g.fa"),
      "--intervals",  dir.str("tasks.bed"), "--window", "100",     "--output-dir",
      dir.str("runs")};
  const std::string expected = fmt::format(
      "error: data.profile_bigwigs entry 1 '{},' is not a bigWig track: expected one file (an "
      "unstranded track) or two different files 'plus.bw,minus.bw' (a stranded pair)\n",
      bigwig);
  CHECK(run(with(flags, {"--profile-bigwigs", bigwig + ","})).err == expected);
  write_text(
      dir.path() / "tracks.json",
      nlohmann::json{{"data", {{"source", "files"}, {"profile_bigwigs", {bigwig + ","}}}}}.dump());
  CHECK(run(with(flags, {"--config", dir.str("tracks.json")})).err == expected);
  // Every other list a flag takes refuses an empty entry too.
  CHECK(run(with(flags, {"--freeze", "0,"})).err ==
        "error: --freeze: entry 2 of '0,' is empty; expected layer indices separated by single "
        "commas (e.g. --freeze 0,3)\n");
  CHECK(run(with(flags, {"--label-columns", "5,"})).err.find("is an empty entry") !=
        std::string::npos);
  CHECK(run({"simulate", "--simulation", "multi_motif_embedding", "--motifs", "CTCF_known1,",
             "--out", dir.str("sim")})
            .err ==
        "error: --motifs: entry 2 of 'CTCF_known1,' is empty; expected names "
        "separated by single commas, such as chr8,chr9\n");
  CHECK(run({"simulate", "--simulation", "chip_nexus_profile", "--motifs",
             "TAL1_known4,TAL1_known4", "--out", dir.str("sim")})
            .err == "error: --motifs: 'TAL1_known4' is given twice in 'TAL1_known4,TAL1_known4'\n");
  CHECK_FALSE(fs::exists(dir.path() / "sim"));
  CHECK_FALSE(fs::exists(dir.path() / "runs"));
}

TEST_CASE("hardening: numbers out of range are refused on every path, printing included") {
  CHECK(run({"train", "--seed", "18446744073709551616", "--print-config"}).err ==
        "error: --seed: '18446744073709551616' is not an integer in [0, 18446744073709551615]\n");
  CHECK(run({"train", "--seed", "-1", "--print-config"}).err ==
        "error: --seed: '-1' is not an integer in [0, 18446744073709551615]\n");
  CHECK(run({"train", "--epochs", "99999999999999999999", "--print-config"}).err ==
        "error: --epochs: '99999999999999999999' is not an integer in [-9223372036854775808, "
        "9223372036854775807]\n");
  CHECK(run({"train", "--lr", "1e999", "--print-config"}).err ==
        "error: --lr: '1e999' is not a finite number within a double's range (magnitudes "
        "about 2.2e-308 to 1.8e308, or 0)\n");
  // What train refuses, --print-config refuses: no null or 0 printed with status 0.
  CHECK(run({"train", "--epochs", "-0", "--print-config"}).err ==
        "error: epochs: must be in [1, 1000000000], got 0\n");
  CHECK(run({"train", "--batch-size", "0", "--print-config"})
            .err.starts_with("error: batch_size: must be in [1, "));
  CHECK(run({"train", "--seed", "18446744073709551615", "--print-config"}).status == 0);
  // The other commands' numbers.
  CHECK(run({"negatives", "--fasta", "g.fa", "--peaks", "p.bed", "--out", "n.bed", "--seed",
             "18446744073709551616"})
            .err ==
        "error: --seed: '18446744073709551616' is not an integer in [0, "
        "18446744073709551615]\n");
  CHECK(run({"predict", "--model", "m", "--out", "x.tsv", "--batch-size", "99999999999999999999"})
            .err.starts_with("error: --batch-size: '99999999999999999999' is not an integer"));
  CHECK(run({"simulate", "--n-pos", "1e3", "--out", "x"}).err ==
        "error: --n-pos: '1e3' is not an integer in [-9223372036854775808, "
        "9223372036854775807]\n");
  CHECK(run({"prepare", "--positives", "a.fa", "--valid-fraction", "nan", "--out", "x"}).err ==
        "error: --valid-fraction: 'nan' is not a finite number within a double's range "
        "(magnitudes about 2.2e-308 to 1.8e308, or 0)\n");
}

TEST_CASE("hardening: a directory given as a BED, folds or intervals file says so") {
  TempDir dir("directories");
  testing::write_three_task_data(dir);
  fs::create_directories(dir.path() / "adir");
  const std::vector<std::string> inspect = {"inspect", "--fasta", dir.str("g.fa"), "--window",
                                            "100"};
  CHECK(run(with(inspect, {"--intervals", dir.str("adir")})).err ==
        fmt::format("error: data.intervals: '{}' is a directory, expected a file\n",
                    dir.str("adir")));
  CHECK(run(with(inspect, {"--intervals", dir.str("tasks.bed"), "--label-columns", "5", "--folds",
                           dir.str("adir")}))
            .err ==
        fmt::format("error: data.folds: '{}' is a directory, expected a file\n", dir.str("adir")));
  REQUIRE(run(three_task_train(dir, "r")).status == 0);
  CHECK(run({"predict", "--model", dir.str("runs/r"), "--fasta", dir.str("g.fa"), "--intervals",
             dir.str("adir"), "--out", dir.str("p.tsv")})
            .err ==
        fmt::format("error: --intervals: '{}' is a directory, expected a file\n", dir.str("adir")));
}

TEST_CASE("hardening: peaks keep their labels: labelled BEDs as peaks, a peak at a contig end") {
  TempDir dir("peaks");
  testing::write_three_task_data(dir);
  // Column 4 labels half the rows 0: with negatives every row would become a peak.
  write_text(dir.path() / "half.bed",
             "chr1\t100\t200\t1\nchr1\t1000\t1100\t0\nchr2\t100\t200\t1\nchr2\t1000\t1100\t0\n");
  const std::string refused = fmt::format(
      "{}:2: column 4 labels this interval 0 (2 of the 4 intervals are labelled 0), but with ",
      dir.str("half.bed"));
  const CliResult inspected =
      run({"inspect", "--fasta", dir.str("g.fa"), "--intervals", dir.str("half.bed"), "--window",
           "100", "--negatives-ratio", "1"});
  CHECK(inspected.status == 1);
  CHECK(inspected.err.find(refused + "data.negatives_ratio every interval") != std::string::npos);
  CHECK(run({"negatives", "--fasta", dir.str("g.fa"), "--peaks", dir.str("half.bed"), "--window",
             "100", "--out", dir.str("n.bed")})
            .err.find(refused) != std::string::npos);
  CHECK(run({"prepare", "--fasta", dir.str("g.fa"), "--peaks", dir.str("half.bed"), "--window",
             "100", "--out", dir.str("prepared")})
            .err.find(refused) != std::string::npos);
  // A narrowPeak peak at chr1's end (3000 bases): its window moves to 2800-3000 and keeps label 1.
  write_text(
      dir.path() / "end.narrowPeak",
      "chr1\t2950\t3000\tp\t0\t.\t5\t-1\t-1\t25\nchr2\t1000\t1100\tq\t0\t.\t5\t-1\t-1\t50\n");
  const CliResult prepared =
      run({"prepare", "--fasta", dir.str("g.fa"), "--peaks", dir.str("end.narrowPeak"), "--window",
           "200", "--out", dir.str("end")});
  REQUIRE_MESSAGE(prepared.status == 0, prepared.err);
  CHECK(read_text(dir.path() / "end" / "tasks.bed") ==
        "#chrom\tstart\tend\tend\nchr1\t2800\t3000\t1\nchr2\t950\t1150\t1\n");
}

}  // namespace strand::cli
