// A training run: a RunConfig trained into a fresh run directory, or the continuation of an
// interrupted run, ending with test metrics in report.json. `strand train` (cli/train_command.h)
// and the Python package's strand.train both run it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/report.h"
#include "app/run_config.h"
#include "app/run_directory.h"
#include "train/callback.h"

namespace strand::app {

/// Knobs of one invocation that are not part of the experiment (not saved in config.json).
struct TrainOptions {
  std::string run_name;  // empty: date-time + seed
  /// Testing aid: behave as if the process were killed during epoch N+1, after the checkpoints
  /// of N epochs and a couple of logged steps of the next (negative: off).
  int64_t stop_after_epochs = -1;
  /// Testing aid: raise SIGTERM in this process after global step N, as a preempting scheduler
  /// would (negative: off); when step N ends an epoch, after that epoch's validation. Training
  /// stops at the next step (or before the final evaluation) like for a real signal.
  int64_t signal_after_steps = -1;
  bool interactive = false;  // redraw a progress bar (terminal) instead of log lines
  int64_t progress_every_steps = 25;
  /// More fit() callbacks (the Python package's epoch hooks), run after the run's own (logs,
  /// checkpoints, progress) on the chief.
  std::vector<std::shared_ptr<train::Callback>> callbacks;
};

struct TrainResult {
  RunPaths paths;
  /// Stopped early: by stop_after_epochs (no report, exit 0), or by SIGINT/SIGTERM (last
  /// checkpoint written mid-epoch, report.json "status": "interrupted").
  bool interrupted = false;
  /// The process's exit status: 0, or 128 + the signal that stopped training (130, 143).
  int exit_code = 0;
  RunReport report;
};

/// Trains `config` in a new run directory under config.output_dir; prints device, threads,
/// data, model table, progress and the report to `out`. Every config, data and model error is
/// raised before training starts. Relative paths are made absolute (with_absolute_paths) before
/// config.json is written. SIGINT and SIGTERM are handled while it runs: training stops
/// at the next step, writes checkpoints/last.safetensors (resumable mid-epoch) and a report
/// marked interrupted, and the result's exit_code is 128 + the signal; a second signal ends
/// the process at once.
TrainResult run_train(const RunConfig& config, const TrainOptions& options, std::ostream& out);

/// Continues the run in `run_dir` from checkpoints/last.safetensors with its config.json.
/// `epochs` and `threads` may be changed (e.g. to train longer); nothing else can.
TrainResult resume_train(const std::filesystem::path& run_dir, std::optional<int64_t> epochs,
                         std::optional<int64_t> threads, const TrainOptions& options,
                         std::ostream& out);

}  // namespace strand::app
