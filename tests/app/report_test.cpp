// report.json and the printed report: every figure of the evaluation, per-task figures grouped
// by task, several terms grouped by output, and the per-task table.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "app/report.h"
#include "fmt/format.h"

namespace strand::app {

namespace {

using nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

train::Evaluation evaluation_of(std::map<std::string, double> values, int64_t labels) {
  train::Evaluation e;
  e.values = std::move(values);
  e.loss = e.values.at("loss");
  e.count = labels;
  return e;
}

RunReport two_task_report() {
  RunReport report;
  report.run_dir = "runs/r";
  report.test_size = 30;
  report.validation_size = 20;
  report.task_names = {"CTCF", "JUN"};
  const std::map<std::string, double> figures = {
      {"loss", 0.61},       {"accuracy", 0.7},    {"auroc", 0.74},     {"auprc", 0.69},
      {"mean_auroc", 0.72}, {"mean_auprc", 0.66}, {"auroc/CTCF", 0.8}, {"auprc/CTCF", 0.7},
      {"auroc/JUN", 0.64},  {"auprc/JUN", kNaN}};
  report.test = evaluation_of(figures, 52);
  report.validation = evaluation_of(figures, 40);
  report.epochs_run = 2;
  report.best_epoch = 1;
  report.monitor = "val_mean_auroc";
  report.best_value = 0.72;
  return report;
}

}  // namespace

TEST_CASE("report.json: a two-task model's figures with its per-task ones grouped by task") {
  const json out = to_json(two_task_report());
  CHECK(out["status"] == "completed");
  CHECK(out["task_names"] == json::array({"CTCF", "JUN"}));
  const json& test = out["test"];
  CHECK(test["count"] == 30);  // examples, not examples x tasks
  CHECK(test["labels"] == 52);
  CHECK(test["loss"] == 0.61);
  CHECK(test["mean_auroc"] == 0.72);
  CHECK(test["tasks"]["CTCF"] == json({{"auroc", 0.8}, {"auprc", 0.7}}));
  CHECK(test["tasks"]["JUN"]["auroc"] == 0.64);
  CHECK(test["tasks"]["JUN"]["auprc"].is_null());  // undefined: null, not NaN
  // Per-task figures appear only under "tasks".
  for (const auto& [key, value] : test.items()) CHECK(key.find('/') == std::string::npos);
  CHECK(out["validation"]["count"] == 20);
  CHECK(out["validation"]["tasks"].size() == 2);
}

TEST_CASE("report.json: several terms are grouped by output, each with its own tasks") {
  RunReport report;
  report.test_size = 10;
  report.task_names = {"a", "b"};
  report.term_outputs = {"profile", "profile_counts"};
  report.test = evaluation_of({{"loss", 2.5},
                               {"profile_loss", 2.3},
                               {"profile_pearson", 0.4},
                               {"profile_counts_loss", 0.4},
                               {"profile_counts_pearson", 0.6},
                               {"profile_counts_mean_pearson", 0.55},
                               {"profile_counts_pearson/a", 0.5},
                               {"profile_counts_pearson/b", 0.6}},
                              0);
  const json test = to_json(report)["test"];
  CHECK(test["loss"] == 2.5);
  CHECK(test["count"] == 10);
  CHECK_FALSE(test.contains("labels"));  // no term scores binary labels
  CHECK(test["outputs"]["profile"] == json({{"loss", 2.3}, {"pearson", 0.4}}));
  const json& counts = test["outputs"]["profile_counts"];
  CHECK(counts["loss"] == 0.4);
  CHECK(counts["mean_pearson"] == 0.55);
  CHECK(counts["tasks"]["b"]["pearson"] == 0.6);
  CHECK(test.size() == 3);  // loss, count, outputs
  std::ostringstream text;
  print_report(text, report);
  CHECK(text.str().find("test:       loss 2.5000  (10 sequences)\n"
                        "  profile:         loss 2.3000  Pearson 0.4000\n"
                        "  profile_counts:  loss 0.4000  Pearson 0.6000  mean Pearson 0.5500\n") !=
        std::string::npos);
  CHECK(text.str().find("per task (test, profile_counts):\n"
                        "  task  Pearson\n"
                        "  a      0.5000\n"
                        "  b      0.6000\n") != std::string::npos);
}

TEST_CASE("printed report: the main figures and a per-task table of the test split") {
  std::ostringstream text;
  print_report(text, two_task_report());
  const std::string s = text.str();
  CHECK(s.find("test:       loss 0.6100  accuracy 0.7000  auROC 0.7400  auPRC 0.6900  mean auROC "
               "0.7200  mean auPRC 0.6600  (30 sequences, 52 labels)\n") != std::string::npos);
  CHECK(s.find("validation: loss 0.6100") != std::string::npos);
  CHECK(s.find("per task (test):\n"
               "  task   auROC   auPRC\n"
               "  CTCF  0.8000  0.7000\n"
               "  JUN   0.6400     nan\n") != std::string::npos);
  CHECK(s.find("best epoch: 1 (val_mean_auroc 0.7200)") != std::string::npos);
}

TEST_CASE("printed report: a single task shows no means and no table") {
  RunReport report;
  report.test_size = 80;
  report.task_names = {"task_0"};
  report.test = evaluation_of({{"loss", 0.2},
                               {"accuracy", 0.9},
                               {"auroc", 0.97},
                               {"auprc", 0.96},
                               {"mean_auroc", 0.97},
                               {"mean_auprc", 0.96}},
                              80);
  std::ostringstream text;
  print_report(text, report);
  CHECK(text.str().find("test:       loss 0.2000  accuracy 0.9000  auROC 0.9700  auPRC 0.9600  "
                        "(80 sequences)\n") != std::string::npos);
  CHECK(text.str().find("per task") == std::string::npos);
}

TEST_CASE("printed report: many tasks show the five best and five worst") {
  RunReport report;
  report.test_size = 100;
  std::map<std::string, double> values = {{"loss", 0.5}, {"auroc", 0.7}, {"mean_auroc", 0.7}};
  for (int t = 0; t < 30; ++t) {
    const std::string task = fmt::format("T{:02}", t);
    report.task_names.push_back(task);
    // T07 has no defined auROC: it sorts last.
    values["auroc/" + task] = t == 7 ? kNaN : 0.5 + 0.01 * t;
  }
  report.test = evaluation_of(values, 3000);
  std::ostringstream text;
  print_report(text, report);
  const std::string s = text.str();
  CHECK(s.find("per task (test, 5 best and 5 worst of 30 by auROC):\n"
               "  task   auROC\n"
               "  T29   0.7900\n") != std::string::npos);
  CHECK(s.find("  T25   0.7500\n  ... 20 more\n  T03   0.5300\n") != std::string::npos);
  CHECK(s.find("  T00   0.5000\n  T07      nan\n") != std::string::npos);
  CHECK(s.find("T10") == std::string::npos);
}

}  // namespace strand::app
