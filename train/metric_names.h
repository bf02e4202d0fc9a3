// The names of the figures a run logs, known before it starts: which fit() logs for an
// objective (the columns of metrics.csv, what early stopping may monitor), which of them are
// losses, and how an evaluation key splits into output, metric and task.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "train/objective.h"

namespace strand::train {

/// The figures fit() logs every epoch from its own training pass, in this order: "loss",
/// "accuracy" (only when the objective's first term scores binary labels), "learning_rate",
/// "samples_per_second", "epoch_seconds".
std::vector<std::string> training_metric_names(const Objective& objective);

/// Every key of fit()'s EpochLogs in the order a log lists them: `training` (as
/// training_metric_names() gives them), then "val_" + each of `evaluation` (evaluation_keys();
/// empty when the run has no validation data).
std::vector<std::string> epoch_metric_names(const std::vector<std::string>& training,
                                            const std::vector<std::string>& evaluation);

/// Whether `key` names a loss, which improves downward: its name before any "/<task>" ends in
/// "loss" ("loss", "val_loss", "val_profile_loss"). Every other figure improves upward.
bool is_loss_name(const std::string& key);

/// An evaluation key taken apart: "counts_pearson/CTCF" of a model whose terms score the
/// outputs "profile" and "counts" is {"counts", "pearson", "CTCF"}.
struct MetricNameParts {
  /// The term's output; "" for a single-term objective and for the total "loss".
  std::string output;
  /// The metric: "loss", "auroc", "mean_auroc", "pearson", ...
  std::string metric;
  /// The task of a per-task figure; "" for a figure over all tasks.
  std::string task;
};

/// Splits an evaluation key (Evaluation::values, without "val_"). `outputs` are the outputs
/// the objective's terms score when there are several (their names prefix the keys, the
/// longest matching one wins); empty for a single term.
MetricNameParts split_metric_name(const std::string& key, const std::vector<std::string>& outputs);

/// The figures worth a line of a log among `keys`, in their order: every key but the per-task
/// ones ("auroc/CTCF") and the means over tasks ("mean_auroc") of a figure without per-task
/// values, which equal the pooled figure.
std::vector<std::string> main_metric_names(const std::vector<std::string>& keys);

}  // namespace strand::train
