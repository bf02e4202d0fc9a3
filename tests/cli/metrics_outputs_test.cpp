// A multi-task run's outputs (issue 14): every task's figures in metrics.csv, TensorBoard and
// report.json; early stopping on any logged figure, checked before training; and a resumed
// run whose metrics.csv has other columns refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/parse_number.h"
#include "support/event_files.h"

namespace strand::cli {
namespace {

using nlohmann::json;
using testing::csv_column;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::with;

// The three-task data split by chromosome: 30 intervals each for training, validation (chr8)
// and test (chr1).
std::vector<std::string> three_task_run(const TempDir& dir, const std::string& name, int epochs) {
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
          "--test-chroms",
          "chr1",
          "--epochs",
          std::to_string(epochs),
          "--batch-size",
          "16",
          "--threads",
          "1",
          "--tensorboard-every",
          "1",
          "--output-dir",
          dir.str(),
          "--run-name",
          name};
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_CASE("a three-task run monitoring val_mean_auroc logs every task everywhere") {
  TempDir dir("three-tasks");
  testing::write_three_task_data(dir);
  const auto result = run(with(three_task_run(dir, "r", 3), {"--monitor", "val_mean_auroc",
                                                             "--patience", "10", "--lr", "0.05"}));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  const auto root = dir.path() / "r";

  // metrics.csv: training figures, then validation ones, aggregate before per task.
  const std::string metrics = read_text(root / "metrics.csv");
  CHECK(first_line(metrics) ==
        "epoch,loss,accuracy,learning_rate,samples_per_second,epoch_seconds,val_loss,"
        "val_accuracy,val_auroc,val_auprc,val_mean_auroc,val_mean_auprc,val_auroc/CTCF,"
        "val_auprc/CTCF,val_auroc/JUN,val_auprc/JUN,val_auroc/POLR2A,val_auprc/POLR2A");
  // Early stopping and best.safetensors followed the mean over tasks, maximised.
  const json report = json::parse(read_text(root / "report.json"));
  CHECK(report["monitor"] == "val_mean_auroc");
  const std::vector<std::string> means = csv_column(metrics, 10);
  REQUIRE(means.size() == 3);
  size_t best = 0;
  for (size_t i = 1; i < means.size(); ++i) {
    if (*parse_double(means[i]) > *parse_double(means[best])) best = i;
  }
  CHECK(report["best_epoch"] == best + 1);
  CHECK(report["best_value"].get<double>() == *parse_double(means[best]));

  // report.json: the tasks, examples and labels, and the per-task figures by task.
  CHECK(report["task_names"] == json::array({"CTCF", "JUN", "POLR2A"}));
  const json& test = report["test"];
  CHECK(test["count"] == 30);
  CHECK(test["labels"] == 74);  // 90 labels less 10 '.' and 6 'NA'
  for (const char* key : {"loss", "accuracy", "auroc", "auprc", "mean_auroc", "mean_auprc"}) {
    CHECK_MESSAGE(test.contains(key), key);
  }
  for (const char* task : {"CTCF", "JUN", "POLR2A"}) {
    CHECK(test["tasks"][task].size() == 2);
    CHECK(test["tasks"][task].contains("auroc"));
  }
  CHECK(test["tasks"]["CTCF"]["auroc"].is_number());
  CHECK(report["validation"]["tasks"].size() == 3);

  // The log: each epoch's main figures, never the per-task ones; the report's task table.
  CHECK(result.out.find("val_mean_auroc ") != std::string::npos);
  CHECK(result.out.find("val_auroc/CTCF") == std::string::npos);
  CHECK(result.out.find("(30 sequences, 74 labels)") != std::string::npos);
  CHECK(result.out.find("per task (test):\n  task     auROC   auPRC\n  CTCF  ") !=
        std::string::npos);

  // TensorBoard: train and validation curves under the same tags, the test run at step 3.
  const auto tensorboard = root / "tensorboard";
  const test::RunScalars train = test::read_run_scalars(tensorboard / "train");
  const test::RunScalars validation = test::read_run_scalars(tensorboard / "validation");
  const test::RunScalars test_run = test::read_run_scalars(tensorboard / "test");
  CHECK(train.at("epoch_loss").size() == 3);
  CHECK(validation.at("epoch_loss").size() == 3);
  CHECK(train.at("batch_loss").size() == 6);  // 2 steps per epoch, every step
  CHECK(validation.at("epoch_mean_auroc").at(best + 1) ==
        static_cast<float>(*parse_double(means[best])));
  for (const char* task : {"CTCF", "JUN", "POLR2A"}) {
    CHECK(validation.at(std::string("epoch_auroc/") + task).size() == 3);
  }
  CHECK(test_run.at("epoch_auroc/CTCF").at(3) ==
        static_cast<float>(test["tasks"]["CTCF"]["auroc"].get<double>()));
  CHECK(test_run.at("epoch_mean_auprc").at(3) ==
        static_cast<float>(test["mean_auprc"].get<double>()));
}

TEST_CASE("early_stopping.monitor: a figure the run does not log fails before training") {
  TempDir dir("monitor");
  testing::write_three_task_data(dir);
  const auto typo = run(with(three_task_run(dir, "typo", 2), {"--monitor", "val_mean_aurco"}));
  CHECK(typo.status == 1);
  CHECK(typo.err.find("error: early_stopping.monitor: 'val_mean_aurco' is not a figure this run "
                      "logs; closest: val_mean_auroc, val_mean_auprc") != std::string::npos);
  CHECK(typo.err.find("val_auroc/<task>, val_auprc/<task> (<task>: CTCF, JUN, POLR2A)") !=
        std::string::npos);
  CHECK(typo.out.find("epoch 1") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "typo"));

  // A per-task figure may be monitored too.
  const auto per_task = run(with(three_task_run(dir, "task", 1), {"--monitor", "val_auprc/CTCF"}));
  REQUIRE_MESSAGE(per_task.status == 0, per_task.err);
  CHECK(json::parse(read_text(dir.path() / "task" / "report.json"))["monitor"] == "val_auprc/CTCF");

  // Without validation data a validation figure is still checked, then the training loss
  // stands in for it (no training auROC is logged).
  std::vector<std::string> no_validation = three_task_run(dir, "novalid", 1);
  no_validation.erase(std::find(no_validation.begin(), no_validation.end(), "--valid-chroms"),
                      std::find(no_validation.begin(), no_validation.end(), "--test-chroms"));
  const auto misspelt = run(with(no_validation, {"--no-early-stopping", "--monitor", "val_aurco"}));
  CHECK(misspelt.status == 1);
  CHECK(misspelt.err.find("closest: val_auroc") != std::string::npos);
  const auto fallback =
      run(with(no_validation, {"--no-early-stopping", "--monitor", "val_mean_auroc"}));
  REQUIRE_MESSAGE(fallback.status == 0, fallback.err);
  CHECK(fallback.out.find("no validation data: the best checkpoint follows the training loss") !=
        std::string::npos);
  CHECK(json::parse(read_text(dir.path() / "novalid" / "report.json"))["monitor"] == "loss");
  CHECK(first_line(read_text(dir.path() / "novalid" / "metrics.csv")) ==
        "epoch,loss,accuracy,learning_rate,samples_per_second,epoch_seconds");
}

TEST_CASE("resume: a metrics.csv written with other columns is refused naming it") {
  TempDir dir("resume-columns");
  REQUIRE(run(with(testing::tiny_run(dir, "r", 3), {"--stop-after-epochs", "1"})).status == 0);
  // As an older strand wrote it: without the means over tasks.
  const auto metrics = dir.path() / "r" / "metrics.csv";
  std::string older;
  std::istringstream rows(read_text(metrics));
  for (std::string row; std::getline(rows, row);) {
    for (int i = 0; i < 2; ++i) row = row.substr(0, row.rfind(','));
    older += row + "\n";
  }
  testing::write_text(metrics, older);
  const auto resumed = run({"train", "--resume", dir.str("r")});
  CHECK(resumed.status == 1);
  CHECK(resumed.err.find(metrics.string()) != std::string::npos);
  CHECK(resumed.err.find("only in this run: val_mean_auroc, val_mean_auprc") != std::string::npos);
  CHECK(read_text(metrics) == older);
  const json report = json::parse(read_text(dir.path() / "r" / "report.json"));
  CHECK(report["status"] == "failed");
}

}  // namespace strand::cli
