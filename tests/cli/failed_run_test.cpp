// A failed run leaves no run directory holding only config.json: one that saved no epoch is
// removed, one with checkpoints keeps them and a report.json marked failed.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test_support.h"

namespace strand::cli {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run;
using testing::TempDir;

// Records data from `strand simulate` under dir/sim, plus dir/sim/two.tsv: the training labels
// with a second target column, which the one-column validation labels do not have. That
// mismatch is found only once the data is built, after the run directory exists.
void simulate(const TempDir& dir) {
  testing::simulate_small_dataset(dir);
  std::istringstream in(read_text(dir.path() / "sim" / "train.tsv"));
  std::string line, two;
  while (std::getline(in, line)) two += line + "\t" + line.substr(line.rfind('\t') + 1) + "\n";
  testing::write_text(dir.path() / "sim" / "two.tsv", two);
}

TEST_CASE("a run that fails before saving an epoch leaves no run directory") {
  TempDir dir("failed-early");
  simulate(dir);
  const auto result = run(testing::small_dataset_train_args(dir, "two.tsv", "r"));
  CHECK(result.status == 1);
  CHECK(result.err.find("every split needs the same tasks") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));  // nor the output_dir it made

  // A run directory the user made beforehand keeps its own files; only the run's go.
  std::filesystem::create_directories(dir.path() / "runs" / "mine");
  testing::write_text(dir.path() / "runs" / "mine" / "notes.txt", "keep me");
  CHECK(run(testing::small_dataset_train_args(dir, "two.tsv", "mine")).status == 1);
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() / "runs" / "mine")) {
    left.push_back(entry.path().filename().string());
  }
  CHECK(left == std::vector<std::string>{"notes.txt"});
}

TEST_CASE("a run that fails after saving epochs is kept with report.json marked failed") {
  TempDir dir("failed-late");
  simulate(dir);
  auto cut = testing::small_dataset_train_args(dir, "train.tsv", "r");
  cut.insert(cut.end(), {"--stop-after-epochs", "1"});
  REQUIRE(run(cut).status == 0);
  // The best checkpoint is damaged under the run; its resume fails once the model is built (a
  // change of the data or config.json is refused before anything starts, leaving the run as it
  // was: tests/cli/hardening_test.cpp).
  const auto root = dir.path() / "runs" / "r";
  testing::write_text(root / "checkpoints" / "best.safetensors", "not a checkpoint");
  const auto resumed = run({"train", "--resume", root.string()});
  CHECK(resumed.status == 1);
  const json report = json::parse(read_text(root / "report.json"));
  CHECK(report["status"] == "failed");
  CHECK(report["error"].get<std::string>().find("best.safetensors") != std::string::npos);
  CHECK(report["resume"] == "strand train --resume " + root.string());
  CHECK(std::filesystem::exists(root / "checkpoints" / "last.safetensors"));
  CHECK(std::filesystem::exists(root / "config.json"));
  CHECK(std::filesystem::exists(root / "metrics.csv"));
}

TEST_CASE("a failed resume of a completed run keeps its report as previous") {
  TempDir dir("failed-resume");
  simulate(dir);
  REQUIRE(run(testing::small_dataset_train_args(dir, "train.tsv", "r")).status == 0);
  const auto root = dir.path() / "runs" / "r";
  // Changed labels: the resume is refused before it starts, and the report stays as it was.
  const std::string labels = read_text(dir.path() / "sim" / "train.tsv");
  std::filesystem::copy_file(dir.path() / "sim" / "two.tsv", dir.path() / "sim" / "train.tsv",
                             std::filesystem::copy_options::overwrite_existing);
  const auto refused = run({"train", "--resume", root.string(), "--epochs", "4"});
  CHECK(refused.status == 1);
  CHECK(refused.err.find("data.intervals: '" + dir.str("sim/train.tsv") + "' changed") !=
        std::string::npos);
  CHECK(json::parse(read_text(root / "report.json"))["status"] == "completed");
  // A resume that fails once it runs (a damaged best checkpoint) keeps the report as previous.
  testing::write_text(dir.path() / "sim" / "train.tsv", labels);
  testing::write_text(root / "checkpoints" / "best.safetensors", "not a checkpoint");
  CHECK(run({"train", "--resume", root.string(), "--epochs", "4"}).status == 1);
  const json report = json::parse(read_text(root / "report.json"));
  CHECK(report["status"] == "failed");
  CHECK(report["previous"]["status"] == "completed");
  CHECK(report["previous"]["epochs_run"] == 2);
}

TEST_CASE("a completed run's report says completed") {
  TempDir dir("completed");
  REQUIRE(run(testing::tiny_run(dir, "r", 1)).status == 0);
  CHECK(json::parse(read_text(dir.path() / "r" / "report.json"))["status"] == "completed");
}

}  // namespace
}  // namespace strand::cli
