// The figure early stopping and the best checkpoint follow: early_stopping.monitor checked
// against the figures the run will log, before any training.
#pragma once

#include <string>
#include <vector>

namespace strand::app {

/// What a run monitors.
struct MonitorChoice {
  /// The logged figure followed (an EpochLogs key).
  std::string key;
  /// A line for the log when `key` is not the configured name (no validation data); else "".
  std::string note;
};

/// Checks `monitor` (early_stopping.monitor) against the figures the run logs: `training`
/// (training_metric_names()) and "val_" + each of `evaluation` (evaluation_keys()), whether
/// or not the run has validation data, so that a misspelt name fails before training.
/// Throws ConfigError naming the key, the closest valid names and every name there is (the
/// per-task ones as "val_auroc/<task>" with the tasks). Without validation data a "val_X"
/// monitor follows the training figure X when one is logged, else the training loss.
MonitorChoice choose_monitor(const std::string& monitor, const std::vector<std::string>& training,
                             const std::vector<std::string>& evaluation, bool has_validation);

}  // namespace strand::app
