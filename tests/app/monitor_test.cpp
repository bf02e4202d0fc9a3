// choose_monitor(): early_stopping.monitor against the figures a run logs, before training.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/monitor.h"
#include "app/run_config.h"
#include "fmt/format.h"

namespace strand::app {

namespace {

using Names = std::vector<std::string>;

const Names kTraining = {"loss", "accuracy", "learning_rate", "samples_per_second",
                         "epoch_seconds"};

// The evaluation keys of one binary term over `tasks` tasks named t0, t1, ...
Names binary_keys(int tasks) {
  Names keys = {"loss", "accuracy", "auroc", "auprc", "mean_auroc", "mean_auprc"};
  for (int t = 0; t < tasks; ++t) {
    keys.push_back(fmt::format("auroc/t{}", t));
    keys.push_back(fmt::format("auprc/t{}", t));
  }
  return keys;
}

std::string error_of(const std::string& monitor, const Names& evaluation) {
  try {
    choose_monitor(monitor, kTraining, evaluation, true);
  } catch (const ConfigError& error) {
    return error.what();
  }
  FAIL("'" << monitor << "' was accepted");
  return "";
}

}  // namespace

TEST_CASE("choose_monitor: any logged figure, training or validation, per task included") {
  for (const char* name : {"val_loss", "val_mean_auroc", "val_auprc/t1", "loss", "accuracy"}) {
    const MonitorChoice choice = choose_monitor(name, kTraining, binary_keys(2), true);
    CHECK(choice.key == name);
    CHECK(choice.note.empty());
  }
}

TEST_CASE("choose_monitor: an unknown name lists the closest and every name, tasks folded") {
  const std::string message = error_of("val_mean_aurco", binary_keys(12));
  CHECK(message.find("early_stopping.monitor: 'val_mean_aurco' is not a figure this run logs; "
                     "closest: val_mean_auroc, val_mean_auprc") == 0);
  CHECK(message.find("The run logs loss, accuracy, learning_rate, samples_per_second, "
                     "epoch_seconds, val_loss, val_accuracy, val_auroc, val_auprc, "
                     "val_mean_auroc, val_mean_auprc, val_auroc/<task>, val_auprc/<task> "
                     "(<task>: t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 and 2 more)") !=
        std::string::npos);
  // A training figure that is not logged (a model without binary labels has no accuracy).
  try {
    choose_monitor("accuracy", {"loss", "learning_rate"}, {"loss", "pearson"}, true);
    FAIL("accuracy was accepted");
  } catch (const ConfigError& error) {
    CHECK(std::string(error.what()).find("'accuracy' is not a figure") != std::string::npos);
  }
  CHECK(error_of("", binary_keys(1)).find("'' is not a figure") != std::string::npos);
}

TEST_CASE("choose_monitor: without validation data a val_ figure falls back to training") {
  const MonitorChoice accuracy = choose_monitor("val_accuracy", kTraining, binary_keys(1), false);
  CHECK(accuracy.key == "accuracy");
  CHECK(accuracy.note == "no validation data: the best checkpoint follows the training accuracy");
  CHECK(choose_monitor("val_auroc/t0", kTraining, binary_keys(2), false).key == "loss");
  CHECK(choose_monitor("loss", kTraining, binary_keys(1), false).note.empty());
}

}  // namespace strand::app
