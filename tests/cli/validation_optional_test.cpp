// A validation file is needed only when early stopping monitors a validation metric: inspect
// and --no-early-stopping runs work without one.
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

std::vector<std::string> train_without_validation(const TempDir& dir, const std::string& name) {
  return {"train",
          "--format",
          "records",
          "--fasta",
          dir.str("sim/train.fa"),
          "--intervals",
          dir.str("sim/train.tsv"),
          "--test-fasta",
          dir.str("sim/test.fa"),
          "--test-intervals",
          dir.str("sim/test.tsv"),
          "--batch-size",
          "32",
          "--epochs",
          "2",
          "--threads",
          "1",
          "--output-dir",
          dir.str("runs"),
          "--run-name",
          name};
}

TEST_CASE("inspect needs no validation file") {
  TempDir dir("inspect-novalid");
  testing::simulate_small_dataset(dir);
  const auto result = run({"inspect", "--format", "records", "--fasta", dir.str("sim/train.fa"),
                           "--intervals", dir.str("sim/train.tsv")});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("\ntrain ") != std::string::npos);
  CHECK(result.out.find("\nvalidation ") == std::string::npos);
}

TEST_CASE("training with --no-early-stopping needs no validation file") {
  TempDir dir("train-novalid");
  testing::simulate_small_dataset(dir);
  auto args = train_without_validation(dir, "r");
  args.push_back("--no-early-stopping");
  const auto result = run(args);
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("train 120, validation 0, test 40") != std::string::npos);
  CHECK(result.out.find("no validation data: the best checkpoint follows the training loss") !=
        std::string::npos);
  const auto root = dir.path() / "runs" / "r";
  const json report = json::parse(read_text(root / "report.json"));
  CHECK(report["validation"].is_null());
  CHECK(report["monitor"] == "loss");
  CHECK(report["epochs_run"] == 2);
  CHECK(report["test"]["count"] == 40);
  CHECK(read_text(root / "metrics.csv").find("val_loss") == std::string::npos);
  CHECK(std::filesystem::exists(root / "checkpoints" / "best.safetensors"));

  // Interrupted and resumed the same way.
  auto cut = train_without_validation(dir, "cut");
  cut.insert(cut.end(), {"--no-early-stopping", "--stop-after-epochs", "1"});
  REQUIRE(run(cut).status == 0);
  const auto resumed = run({"train", "--resume", dir.str("runs/cut")});
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(json::parse(read_text(dir.path() / "runs" / "cut" / "report.json"))["epochs_run"] == 2);
}

TEST_CASE("early stopping on a validation metric still requires a validation file") {
  TempDir dir("es-novalid");
  testing::simulate_small_dataset(dir);
  const auto result = run(train_without_validation(dir, "r"));
  CHECK(result.status == 1);
  CHECK(result.err.find("error: data.valid_intervals: a validation file is required: early "
                        "stopping monitors 'val_loss'") == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));
  // Early stopping on the training loss needs none.
  testing::write_text(dir.path() / "es.json",
                      R"({"early_stopping": {"monitor": "loss", "patience": 1}})");
  auto args = train_without_validation(dir, "loss");
  args.insert(args.end(), {"--config", dir.str("es.json")});
  const auto on_loss = run(args);
  CHECK_MESSAGE(on_loss.status == 0, on_loss.err);
}

}  // namespace
}  // namespace strand::cli
