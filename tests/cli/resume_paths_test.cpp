// A run started with relative paths resumes from any directory: config.json stores them
// absolute.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_support.h"

namespace strand::cli {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run;
using testing::TempDir;

// Changes the working directory for its lifetime.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const std::filesystem::path& path)
      : previous_(std::filesystem::current_path()) {
    std::filesystem::current_path(path);
  }
  ~WorkingDirectory() { std::filesystem::current_path(previous_); }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  std::filesystem::path previous_;
};

std::string normal(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

TEST_CASE("a run started with relative paths resumes from another directory") {
  TempDir dir("relative");
  std::filesystem::create_directories(dir.path() / "elsewhere");
  testing::simulate_small_dataset(dir);
  {
    WorkingDirectory here(dir.path());
    const auto started = run({"train",
                              "--format",
                              "records",
                              "--fasta",
                              "sim/train.fa",
                              "--intervals",
                              "sim/train.tsv",
                              "--valid-fasta",
                              "sim/valid.fa",
                              "--valid-intervals",
                              "sim/valid.tsv",
                              "--batch-size",
                              "32",
                              "--epochs",
                              "2",
                              "--threads",
                              "1",
                              "--no-early-stopping",
                              "--output-dir",
                              "runs",
                              "--run-name",
                              "r",
                              "--stop-after-epochs",
                              "1"});
    REQUIRE_MESSAGE(started.status == 0, started.err);
  }
  const auto root = dir.path() / "runs" / "r";
  const json config = json::parse(read_text(root / "config.json"));
  CHECK(config["data"]["fasta"] == normal(dir.str("sim/train.fa")));
  CHECK(config["data"]["intervals"] == normal(dir.str("sim/train.tsv")));
  CHECK(config["data"]["valid_fasta"] == normal(dir.str("sim/valid.fa")));
  CHECK(config["data"]["valid_intervals"] == normal(dir.str("sim/valid.tsv")));
  CHECK(config["output_dir"] == normal(dir.str("runs")));
  WorkingDirectory elsewhere(dir.path() / "elsewhere");
  const auto resumed = run({"train", "--resume", root.string()});
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(resumed.out.find("resume: 1 epochs done") != std::string::npos);
  CHECK(json::parse(read_text(root / "report.json"))["epochs_run"] == 2);
}

}  // namespace
}  // namespace strand::cli
