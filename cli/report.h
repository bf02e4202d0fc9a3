// The end-of-run report: test metrics and how training went, as report.json and as text.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "train/fit.h"

namespace strand::cli {

struct RunReport {
  std::string run_dir;
  std::string device;
  int threads = 1;
  uint64_t seed = 0;
  int64_t train_size = 0, validation_size = 0, test_size = 0;
  std::optional<train::Evaluation> test;        // absent when there is no test split
  std::optional<train::Evaluation> validation;  // final (best, when restored) weights; absent
                                                // when the run had no validation data
  int64_t epochs_run = 0;                       // epochs completed in total (resumes included)
  int64_t best_epoch = 0;                       // 1-based; 0 when unknown
  std::string monitor;
  double best_value = 0.0;
  bool stopped_early = false;
  double wall_seconds = 0.0;        // this invocation, data + training + evaluation
  double train_seconds = 0.0;       // fit() alone
  double samples_per_second = 0.0;  // training throughput over this invocation's epochs
};

/// report.json of a finished run: "status": "completed" and the figures above.
nlohmann::json to_json(const RunReport& report);
/// report.json of a run that stopped on an error: "status": "failed", the error, the run
/// directory and the command that continues it from its last checkpoint. (A failed resume of a
/// completed run adds that run's report as "previous".)
nlohmann::json failed_report_json(const std::string& run_dir, const std::string& error);
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

}  // namespace strand::cli
