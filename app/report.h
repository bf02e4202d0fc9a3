// The end-of-run report: test metrics and how training went, as report.json and as text.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "train/fit.h"

namespace strand::app {

/// What report.json and the printed report say about a completed run. Each split's figures
/// are every figure of Evaluation::values, grouped (see to_json()).
struct RunReport {
  std::string run_dir;
  std::string device;
  int threads = 1;
  std::string precision = "fp32";  // of float32 matrix math (tensor/precision.h)
  uint64_t seed = 0;
  int64_t train_size = 0, validation_size = 0, test_size = 0;
  std::vector<std::string> task_names;          // the labels' tasks, in the data's order
  std::vector<std::string> term_outputs;        // the outputs the objective's terms score when
                                                // there are several (their names prefix the
                                                // figures); empty for one term
  std::optional<train::Evaluation> test;        // absent when there is no test split
  std::optional<train::Evaluation> validation;  // final (best, when restored) weights; absent
                                                // when the run had no validation data
  /// Tasks of the validation and test splits whose figures are undefined, by split and task:
  /// {"validation": {"CTCF": "every label is missing ..."}} (app/unscored_tasks.h).
  std::map<std::string, std::map<std::string, std::string>> unscored_tasks;
  int64_t epochs_run = 0;  // epochs completed in total (resumes included)
  int64_t best_epoch = 0;  // 1-based; 0 when unknown
  std::string monitor;
  double best_value = 0.0;
  bool stopped_early = false;
  double wall_seconds = 0.0;        // this invocation, data + training + evaluation
  double train_seconds = 0.0;       // fit() alone
  double samples_per_second = 0.0;  // training throughput over this invocation's epochs
  /// On a GPU: the training steps replayed from the captured CUDA graph (the others ran eagerly:
  /// the first, which warms up and captures, and each epoch's last, smaller batch); -1 on a CPU.
  int64_t cuda_graph_replays = -1;
};

/// report.json of a finished run: "status": "completed" and the figures above. "task_names"
/// lists the tasks; "validation" and "test" hold "count" (examples scored), "labels" (the
/// labels scored, when a term scores binary labels: with several tasks, examples x tasks less
/// the missing ones) and every figure of the split's Evaluation::values, JSON null where
/// undefined (NaN). A single-term model's figures sit in the split itself and its per-task
/// figures under "tasks", by task:
///   "test": {"count": 30, "labels": 74, "loss": 0.61, "accuracy": 0.7, "auroc": 0.74,
///            "auprc": 0.69, "mean_auroc": 0.72, "mean_auprc": 0.66,
///            "tasks": {"CTCF": {"auroc": 0.8, "auprc": 0.7}, "JUN": {...}}}
/// With several terms the split holds the objective's "loss" and "outputs", by output name,
/// each with that term's figures (unprefixed) and "tasks":
///   "test": {"count": 30, "loss": 2.5, "outputs": {"profile": {"loss": 2.3, "pearson": 0.4},
///            "counts": {"loss": 0.4, "pearson": 0.6, ..., "tasks": {...}}}}
/// "unscored_tasks" says which tasks of which split have undefined figures, and why (an empty
/// object when every task was scored): {"test": {"JUN": "no positive label (...)"}}. A GPU run
/// adds "cuda_graph_replays".
nlohmann::json to_json(const RunReport& report);
/// report.json of a run that stopped on an error: "status": "failed", the error, the run
/// directory and the command that continues it from its last checkpoint. (A failed resume of a
/// completed run adds that run's report as "previous".)
nlohmann::json failed_report_json(const std::string& run_dir, const std::string& error);
/// The report as text: each split's main figures (main_metric_names()) per term, and with
/// several tasks a table of the per-task figures of the test split (else validation): every
/// task up to 20, else the 5 best and 5 worst by the first figure.
void print_report(std::ostream& out, const RunReport& report);

/// What report.json holds for a run that SIGINT or SIGTERM stopped: where it stopped, so that
/// `strand train --resume` continues from checkpoints/last.safetensors.
struct InterruptedReport {
  std::string run_dir;
  std::string signal;            // "SIGTERM"
  int64_t epochs_completed = 0;  // whole epochs done
  int64_t steps_in_epoch = 0;    // steps of the next epoch done
  int64_t steps_per_epoch = 0;
  int64_t global_step = 0;          // optimizer steps in total
  bool evaluation_skipped = false;  // training had ended; the final evaluation did not run
  double wall_seconds = 0.0;        // this invocation
  double train_seconds = 0.0;       // fit() alone
};

/// "status": "interrupted", the signal, the position and the command that resumes.
nlohmann::json to_json(const InterruptedReport& report);

}  // namespace strand::app
