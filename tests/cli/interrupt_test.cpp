// SIGINT/SIGTERM during `strand train`: training stops at the next step, writes the last
// checkpoint mid-epoch and report.json marked interrupted, exits 128 + signal, and --resume
// continues to the same numbers as an uninterrupted run.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_test_support.h"
#include "support/strand_executable.h"
#include "test_helpers.h"
#include "train/checkpoint.h"

namespace strand::cli {
namespace {

using nlohmann::json;
using testing::count_lines;
using testing::csv_column;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::with;

// The resumed run `cut` and the uninterrupted run `full` logged the same steps, the same epoch
// losses, accuracies and validation metrics, and the same test metrics.
void check_same_run(const std::filesystem::path& cut, const std::filesystem::path& full) {
  CHECK(read_text(cut / "steps.csv") == read_text(full / "steps.csv"));
  for (size_t column : {0, 1, 2, 6, 7, 8, 9}) {
    CHECK(csv_column(read_text(cut / "metrics.csv"), column) ==
          csv_column(read_text(full / "metrics.csv"), column));
  }
  const json a = json::parse(read_text(full / "report.json"));
  const json b = json::parse(read_text(cut / "report.json"));
  CHECK(b["status"] == "completed");
  CHECK(a["test"] == b["test"]);
  CHECK(a["validation"] == b["validation"]);
  CHECK(a["epochs_run"] == b["epochs_run"]);
}

TEST_CASE("train: SIGTERM mid-epoch writes last and an interrupted report, and resume is exact") {
  TempDir dir("sigterm-inprocess");
  REQUIRE(run(tiny_run(dir, "full", 4)).status == 0);
  // 8 steps per epoch: the signal arrives in step 13, the 5th step of epoch 2.
  const auto cut = run(with(tiny_run(dir, "cut", 4), {"--signal-after-steps", "13"}));
  CHECK(cut.status == 128 + SIGTERM);
  CHECK(cut.out.find("epoch 2/4: stopped after step 5 of 8") != std::string::npos);
  CHECK(cut.out.find("interrupted by SIGTERM after 1 epoch(s) and 5 of 8 steps (step 13)") !=
        std::string::npos);
  const auto root = dir.path() / "cut";
  const json report = json::parse(read_text(root / "report.json"));
  CHECK(report["status"] == "interrupted");
  CHECK(report["signal"] == "SIGTERM");
  CHECK(report["epochs_completed"] == 1);
  CHECK(report["steps_in_epoch"] == 5);
  CHECK(report["global_step"] == 13);
  CHECK(report["resume"] == "strand train --resume " + root.string());
  const train::CheckpointMetadata last =
      train::read_checkpoint_metadata(root / "checkpoints" / "last.safetensors");
  CHECK(last.at("epochs_completed") == "1");
  CHECK(last.at("steps_in_epoch") == "5");
  CHECK(last.at("global_step") == "13");
  CHECK(count_lines(read_text(root / "steps.csv")) == 1 + 13);
  CHECK(count_lines(read_text(root / "metrics.csv")) == 1 + 1);

  const auto resumed = run({"train", "--resume", root.string()});
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(resumed.out.find("resume: 1 epochs and 5 of 8 steps of epoch 2 done (step 13)") !=
        std::string::npos);
  check_same_run(root, dir.path() / "full");
  CHECK(train::read_checkpoint_metadata(root / "checkpoints" / "last.safetensors")
            .count("steps_in_epoch") == 0);
}

TEST_CASE("train: a signal during an epoch's validation stops before the next epoch's first step") {
  TempDir dir("sigterm-epoch-end");
  REQUIRE(run(tiny_run(dir, "full", 3)).status == 0);
  const auto cut = run(with(tiny_run(dir, "cut", 3), {"--signal-after-steps", "16"}));
  CHECK(cut.status == 128 + SIGTERM);
  const json report = json::parse(read_text(dir.path() / "cut" / "report.json"));
  CHECK(report["epochs_completed"] == 2);
  CHECK(report["steps_in_epoch"] == 0);
  CHECK(report["evaluation_skipped"] == false);
  const auto resumed = run({"train", "--resume", dir.str("cut")});
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  check_same_run(dir.path() / "cut", dir.path() / "full");
}

TEST_CASE("train: a signal after the last epoch skips the final evaluation until resume") {
  TempDir dir("sigterm-final");
  REQUIRE(run(tiny_run(dir, "full", 3)).status == 0);
  const auto cut = run(with(tiny_run(dir, "cut", 3), {"--signal-after-steps", "24"}));
  CHECK(cut.status == 128 + SIGTERM);
  CHECK(cut.out.find("before the final evaluation") != std::string::npos);
  CHECK(cut.out.find("== report") == std::string::npos);
  const json report = json::parse(read_text(dir.path() / "cut" / "report.json"));
  CHECK(report["status"] == "interrupted");
  CHECK(report["epochs_completed"] == 3);
  CHECK(report["evaluation_skipped"] == true);
  const auto resumed = run({"train", "--resume", dir.str("cut")});
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(resumed.out.find("the run had already finished; evaluating it") != std::string::npos);
  check_same_run(dir.path() / "cut", dir.path() / "full");
}

#ifdef STRAND_EXE
// Starts `strand train ARGS` as a child process with output into `log`.
pid_t spawn_strand(const std::vector<std::string>& args, const std::filesystem::path& log) {
  const std::filesystem::path program = strand::test::strand_executable();
  REQUIRE_MESSAGE(::access(program.c_str(), X_OK) == 0,
                  "no strand executable at '" << program.string()
                                              << "' (set STRAND_EXE to the program to test)");
  std::vector<std::string> all = {program.string()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits until `path` has at least `lines` lines (the child is training) or the child ended.
bool wait_for_lines(const std::filesystem::path& path, int64_t lines, pid_t child) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (std::chrono::steady_clock::now() < give_up) {
    if (std::filesystem::exists(path) && count_lines(read_text(path)) >= lines) return true;
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// Sends `signal` to a `strand train` child once it has logged 20 steps; returns its exit
// status (-1 when it did not exit normally).
int interrupt_child(const TempDir& dir, const std::string& name, int signal) {
  // Far more epochs than the test waits for: only the signal ends the run.
  const pid_t child = spawn_strand(tiny_run(dir, name, 100000), dir.path() / (name + ".log"));
  REQUIRE(child > 0);
  const bool training = wait_for_lines(dir.path() / name / "steps.csv", 1 + 20, child);
  if (training) ::kill(child, signal);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO(read_text(dir.path() / (name + ".log")));
  REQUIRE(training);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("train: SIGTERM to a strand process stops it cleanly and --resume continues exactly") {
  TempDir dir("sigterm-child");
  CHECK(interrupt_child(dir, "cut", SIGTERM) == 143);
  const auto root = dir.path() / "cut";
  const json report = json::parse(read_text(root / "report.json"));
  CHECK(report["status"] == "interrupted");
  CHECK(report["signal"] == "SIGTERM");
  const train::CheckpointMetadata last =
      train::read_checkpoint_metadata(root / "checkpoints" / "last.safetensors");
  const int64_t epochs = std::stoll(last.at("epochs_completed"));
  const int64_t global_step = report["global_step"].get<int64_t>();
  CHECK(global_step >= 20);
  CHECK(std::stoll(last.at("global_step")) == global_step);
  CHECK(epochs == report["epochs_completed"].get<int64_t>());
  // No temporary file was left behind, and steps.csv may run ahead of the checkpoint only by
  // rows that resume drops.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  }
  // Resume to two epochs past the one interrupted; the same run trained straight through to
  // that many epochs logs the same numbers.
  const std::string total = std::to_string(epochs + 2);
  const auto resumed = run({"train", "--resume", root.string(), "--epochs", total});
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  REQUIRE(run(tiny_run(dir, "full", static_cast<int>(epochs + 2))).status == 0);
  check_same_run(root, dir.path() / "full");
}

TEST_CASE("train: SIGINT to a strand process exits 130 with an interrupted report") {
  TempDir dir("sigint-child");
  CHECK(interrupt_child(dir, "cut", SIGINT) == 130);
  const json report = json::parse(read_text(dir.path() / "cut" / "report.json"));
  CHECK(report["status"] == "interrupted");
  CHECK(report["signal"] == "SIGINT");
  CHECK(std::filesystem::exists(dir.path() / "cut" / "checkpoints" / "last.safetensors"));
}
#else
TEST_CASE("train: SIGTERM to a strand process stops it cleanly and --resume continues exactly") {
  STRAND_SKIP("the strand executable is not part of this build");
}
#endif

}  // namespace
}  // namespace strand::cli
