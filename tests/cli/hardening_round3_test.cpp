// Issue 38 (hardening, round 3), the command line: each case is the issue's reproducer against
// the commands added last round (variants, explain, marginalize) and the FASTA reader: outputs
// that would replace an input, flags that did nothing, letters read as N, a preset's window
// padded onto shorter records, and SIGINT/SIGTERM during every long-running command (a one-line
// message, exit 128 + signal, nothing written, no temporary file).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_support.h"
#include "core/stop_signal.h"
#include "fmt/format.h"
#include "support/strand_executable.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::with;
using testing::write_text;

std::string bases(int64_t length, uint64_t seed) {
  std::string out;
  for (int64_t i = 0; i < length; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    out += "ACGT"[(seed >> 33) % 4];
  }
  return out;
}

// dir/g.fa (chr1, chr2: 3000 bases each), dir/r.fa (20 records of 100 bases), dir/in.vcf (SNVs
// of g.fa), dir/w.bed (windows of chr1) and a tiny trained run (100 bp windows) in dir/run.
struct Scene {
  TempDir dir{"round3"};
  std::string chr1 = bases(3000, 1);
  Scene() {
    write_text(dir.path() / "g.fa", ">chr1\n" + chr1 + "\n>chr2\n" + bases(3000, 2) + "\n");
    std::string records;
    for (int i = 0; i < 20; ++i) records += fmt::format(">r{}\n{}\n", i, bases(100, 10 + i));
    write_text(dir.path() / "r.fa", records);
    std::string vcf = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
    for (int p = 200; p <= 2800; p += 100) {
      const char ref = chr1[static_cast<size_t>(p - 1)];
      vcf += fmt::format("chr1\t{}\tv{}\t{}\t{}\t.\t.\t.\n", p, p, ref, ref == 'A' ? 'C' : 'A');
    }
    write_text(dir.path() / "in.vcf", vcf);
    write_text(dir.path() / "w.bed", "chr1\t100\t200\nchr1\t500\t600\nchr1\t900\t1000\n");
    REQUIRE(run(tiny_run(dir, "run", 1)).status == 0);
  }
  std::string path(const std::string& name) const { return dir.str(name); }
  std::vector<std::string> variants(const std::string& out) const {
    return {"variants",     "--model", path("run"), "--fasta",   path("g.fa"), "--vcf",
            path("in.vcf"), "--out",   out,         "--threads", "1"};
  }
  // The names in the directory that hold ".tmp." (temporary files left behind), recursively.
  std::vector<std::string> temporary_files() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
      const std::string name = entry.path().filename().string();
      if (name.find(".tmp.") != std::string::npos) names.push_back(name);
    }
    return names;
  }
};

TEST_CASE("variants, explain, marginalize: an output naming an input is refused before work") {
  Scene scene;
  const std::string genome = read_text(scene.path("g.fa"));
  const std::string calls = read_text(scene.path("in.vcf"));
  fs::create_hard_link(scene.path("g.fa"), scene.path("hard.fa"));
  fs::create_symlink(scene.path("in.vcf"), scene.path("soft.vcf"));
  const auto refused = [&](const std::vector<std::string>& args, const std::string& message) {
    const CliResult result = run(args);
    CAPTURE(result.err);
    CHECK(result.status == 1);
    CHECK(result.err.find(message) == 0);
  };
  // Issue 38: `strand variants --out genome.fa` overwrote the genome and exited 0.
  refused(scene.variants(scene.path("g.fa")),
          "error: --out: '" + scene.path("g.fa") + "' is the --fasta file this command reads");
  refused(scene.variants(scene.path("in.vcf")),
          "error: --out: '" + scene.path("in.vcf") + "' is the --vcf file this command reads");
  // Another name for the same file: a hard link, a symbolic link, a relative path.
  refused(scene.variants(scene.path("hard.fa")), "error: --out: '" + scene.path("hard.fa") + "'");
  refused(scene.variants(scene.path("soft.vcf")), "error: --out: '" + scene.path("soft.vcf"));
  refused(scene.variants(scene.path("sub/../g.fa")), "error: --out:");
  refused(with(scene.variants(scene.path("s.tsv")),
               {"--attributions", "2", "--attributions-out", scene.path("g.fa")}),
          "error: --attributions-out: '" + scene.path("g.fa") + "' is the --fasta file");
  refused({"explain", "--model", scene.path("run"), "--method", "deeplift_shap", "--fasta",
           scene.path("r.fa"), "--out", scene.path("a.npz"), "--deviations", scene.path("r.fa")},
          "error: --deviations: '" + scene.path("r.fa") + "' is the --fasta file");
  refused({"explain", "--model", scene.path("run"), "--method", "ism", "--fasta",
           scene.path("r.fa"), "--out", scene.path("a.npz"), "--out", scene.path("a_onehot.npz")},
          "error: --out: '" + scene.path("a_onehot.npz") +
              "' is also the file of --out (its _onehot.npz)");
  refused({"marginalize", "--model", scene.path("run"), "--fasta", scene.path("r.fa"), "--motif",
           "CAGCTG", "--out", scene.path("r.fa")},
          "error: --out: '" + scene.path("r.fa") + "' is the --fasta file");
  CHECK(read_text(scene.path("g.fa")) == genome);
  CHECK(read_text(scene.path("in.vcf")) == calls);
  CHECK_FALSE(fs::exists(scene.path("a.npz")));
}

TEST_CASE("variants: --attributions-out without --attributions, and a directory as --vcf") {
  Scene scene;
  // Issue 38: --attributions-out alone was ignored without a word.
  CliResult result =
      run(with(scene.variants(scene.path("s.tsv")), {"--attributions-out", scene.path("a.npz")}));
  CHECK(result.status == 1);
  CHECK(result.err.find("error: --attributions-out: names the file of --attributions N") == 0);
  CHECK_FALSE(fs::exists(scene.path("s.tsv")));
  // Issue 38: a directory was "missing or unreadable".
  fs::create_directories(scene.path("calls"));
  std::vector<std::string> args = scene.variants(scene.path("s.tsv"));
  args[6] = scene.path("calls");
  result = run(args);
  CHECK(result.status == 1);
  CHECK(result.err ==
        "error: --vcf: '" + scene.path("calls") + "' is a directory, expected a file\n");
}

TEST_CASE("predict: digits, '.' and '*' in FASTA sequence lines are refused naming the line") {
  Scene scene;
  // Issue 38: read as N without a word (a space was refused).
  write_text(scene.path("digits.fa"),
             ">a\n" + bases(60, 3) + "\n" + bases(37, 4) + "12" + bases(1, 5) + "\n");
  const CliResult result = run({"predict", "--model", scene.path("run"), "--fasta",
                                scene.path("digits.fa"), "--out", scene.path("p.tsv")});
  CHECK(result.status == 1);
  CHECK(result.err.find(scene.path("digits.fa") +
                        ":3: '1' at column 38 of record 'a' is not a base letter") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(scene.path("p.tsv")));
}

TEST_CASE("train --model basset --format records takes the records' length, not 600 bases") {
  TempDir dir("basset-records");
  REQUIRE(run({"simulate", "--n-pos", "20", "--n-neg", "20", "--validation", "10", "--test", "10",
               "--out", dir.str("sim")})
              .status == 0);
  const std::vector<std::string> data = {"--format",    "records",
                                         "--fasta",     dir.str("sim/train.fa"),
                                         "--intervals", dir.str("sim/train.tsv")};
  // Issue 38: the preset's 600-base window came back under --format records, and 500-base
  // records were trained padded with 100 N.
  CliResult printed = run(with({"train", "--model", "basset", "--print-config"}, data));
  REQUIRE_MESSAGE(printed.status == 0, printed.err);
  CHECK(nlohmann::json::parse(printed.out)["data"]["window"] == 0);
  // The same through a config file naming the preset.
  write_text(dir.path() / "c.json",
             R"({"preset": "basset", "data": {"source": "files", "format": "records"}})");
  printed = run(with({"train", "--config", dir.str("c.json"), "--print-config"}, data));
  REQUIRE_MESSAGE(printed.status == 0, printed.err);
  CHECK(nlohmann::json::parse(printed.out)["data"]["window"] == 0);
  // A window given on purpose stays, and padding the records is said aloud.
  printed = run(with({"train", "--model", "basset", "--window", "600", "--print-config"}, data));
  CHECK(nlohmann::json::parse(printed.out)["data"]["window"] == 600);
  const CliResult padded = run(with({"train", "--window", "600", "--epochs", "1", "--threads", "1",
                                     "--no-early-stopping", "--output-dir", dir.str("runs")},
                                    data));
  REQUIRE_MESSAGE(padded.status == 0, padded.err);
  CHECK(padded.err.find("warning: 20 of the 20 records labelled in '" + dir.str("sim/train.tsv") +
                        "' are shorter than the 600-base window (the shortest: 500 bases) and "
                        "are padded with N") != std::string::npos);
}

// Runs `args` in this process with SIGTERM (or `signal`) raised at the work's `poll`-th poll,
// as a scheduler's signal would arrive mid-run; returns the result.
CliResult run_signalled(const std::vector<std::string>& args, int signal = SIGTERM,
                        int64_t poll = 1) {
  raise_signal_at_poll(poll, signal);
  const CliResult result = run(args);
  raise_signal_at_poll(0, signal);
  return result;
}

void check_interrupted(const CliResult& result, const std::string& command, int signal,
                       const Scene& scene) {
  CAPTURE(result.out);
  CAPTURE(result.err);
  CHECK(result.status == 128 + signal);
  CHECK(result.err.find(command + ": interrupted by " + signal_name(signal)) != std::string::npos);
  CHECK(scene.temporary_files().empty());
}

TEST_CASE("SIGINT/SIGTERM stop predict, explain, marginalize and variants: nothing written") {
  Scene scene;
  const std::string model = scene.path("run");
  check_interrupted(run_signalled({"predict", "--model", model, "--fasta", scene.path("g.fa"),
                                   "--tile", "chr1:1-3000", "--step", "1", "--batch-size", "8",
                                   "--out", scene.path("p.tsv")}),
                    "predict", SIGTERM, scene);
  check_interrupted(run_signalled({"predict", "--model", model, "--fasta", scene.path("r.fa"),
                                   "--batch-size", "4", "--out", "-"},
                                  SIGINT, 2),
                    "predict", SIGINT, scene);
  // Issue 38: explain left three temporary files.
  check_interrupted(
      run_signalled({"explain", "--model", model, "--method", "deeplift_shap", "--fasta",
                     scene.path("r.fa"), "--references", "4", "--out", scene.path("e.npz"), "--out",
                     scene.path("e.tsv"), "--deviations", scene.path("d.tsv"), "--threads", "1"},
                    SIGTERM, 2),
      "explain", SIGTERM, scene);
  check_interrupted(
      run_signalled({"explain", "--model", model, "--method", "ism", "--fasta", scene.path("r.fa"),
                     "--out", scene.path("e.npz"), "--threads", "1"}),
      "explain", SIGTERM, scene);
  check_interrupted(
      run_signalled({"marginalize", "--model", model, "--fasta", scene.path("r.fa"), "--motif",
                     "CAGCTG", "--out", scene.path("m.tsv"), "--threads", "1"}),
      "marginalize", SIGTERM, scene);
  const CliResult variants = run_signalled(scene.variants(scene.path("v.tsv")), SIGINT);
  CHECK(variants.status == 130);
  CHECK(variants.out.find("variants: interrupted by SIGINT") != std::string::npos);
  CHECK(scene.temporary_files().empty());
  for (const char* name : {"p.tsv", "e.npz", "e_onehot.npz", "e.tsv", "d.tsv", "m.tsv", "v.tsv"}) {
    CAPTURE(name);
    CHECK_FALSE(fs::exists(scene.path(name)));
  }
  // The same commands, unsignalled, run to the end afterwards (no request lingers).
  CHECK(run({"marginalize", "--model", model, "--fasta", scene.path("r.fa"), "--motif", "CAGCTG",
             "--out", scene.path("m.tsv"), "--threads", "1"})
            .status == 0);
}

TEST_CASE("SIGINT/SIGTERM stop simulate, prepare and negatives: nothing written") {
  Scene scene;
  check_interrupted(run_signalled({"simulate", "--out", scene.path("sim")}), "simulate", SIGTERM,
                    scene);
  CHECK_FALSE(fs::exists(scene.path("sim")));
  check_interrupted(
      run_signalled({"simulate", "--simulation", "motif_counting", "--out", scene.path("sim")},
                    SIGINT),
      "simulate", SIGINT, scene);
  CHECK_FALSE(fs::exists(scene.path("sim")));
  write_text(scene.path("neg.fa"), ">n0\n" + bases(50, 7) + "\n>n1\n" + bases(50, 8) + "\n");
  check_interrupted(run_signalled({"prepare", "--positives", scene.path("r.fa"), "--negatives",
                                   scene.path("neg.fa"), "--out", scene.path("prepared")},
                                  SIGTERM, 5),
                    "prepare", SIGTERM, scene);
  CHECK_FALSE(fs::exists(scene.path("prepared/sequences.fa")));
  write_text(scene.path("peaks.bed"), "chr1\t1000\t1100\nchr2\t500\t600\n");
  check_interrupted(
      run_signalled({"negatives", "--fasta", scene.path("g.fa"), "--peaks", scene.path("peaks.bed"),
                     "--window", "100", "--out", scene.path("neg.bed")}),
      "negatives", SIGTERM, scene);
  CHECK_FALSE(fs::exists(scene.path("neg.bed")));
}

#ifdef STRAND_EXE
// Starts the strand executable with `args`, its output into `log`.
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  const fs::path program = strand::test::strand_executable();
  REQUIRE_MESSAGE(::access(program.c_str(), X_OK) == 0,
                  "no strand executable at '" << program.string() << "'");
  std::vector<std::string> all = {program.string()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

TEST_CASE("predict --tile: SIGTERM to the process says so, exits 143 and leaves no .tmp file") {
  Scene scene;
  // Issue 38: predict installed no handler; SIGTERM left a partial temporary table and no word.
  std::string genome = ">chrL\n";
  const std::string chunk = bases(100000, 9);
  for (int i = 0; i < 30; ++i) genome += chunk + "\n";
  write_text(scene.path("long.fa"), genome);
  const std::string log = scene.path("predict.log");
  const pid_t child =
      spawn({"predict", "--model", scene.path("run"), "--fasta", scene.path("long.fa"), "--tile",
             "chrL:1-3000000", "--step", "10", "--threads", "1", "--out", scene.path("tiles.tsv")},
            log);
  REQUIRE(child > 0);
  // The first line says scoring has started (the handler is in place then).
  bool started = false;
  int status = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!started && std::chrono::steady_clock::now() < give_up) {
    started = read_text(log).find("predict: ") != std::string::npos;
    if (!started && ::waitpid(child, &status, WNOHANG) == child) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (started) {
    ::kill(child, SIGTERM);
    REQUIRE(::waitpid(child, &status, 0) == child);
  }
  const std::string text = read_text(log);
  INFO(text);
  REQUIRE(started);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);
  CHECK(text.find("strand: stopping at the next batch; nothing is written") != std::string::npos);
  CHECK(text.find("predict: interrupted by SIGTERM; nothing written") != std::string::npos);
  CHECK(text.find("saving checkpoints") == std::string::npos);  // not the trainer's message
  CHECK_FALSE(fs::exists(scene.path("tiles.tsv")));
  CHECK(scene.temporary_files().empty());
}
#endif

}  // namespace
}  // namespace strand::cli
