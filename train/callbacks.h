// The standard callbacks: early stopping, checkpoints, TensorBoard, CSV, progress, and a
// per-step loss log (the record that resume is checked against).
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "train/callback.h"
#include "train/checkpoint.h"
#include "train/csv_logger.h"
#include "train/progress_bar.h"
#include "train/tensorboard.h"

namespace strand::train {

/// Whether `monitor` improves upward under `mode`: "min" (losses), "max" (accuracy, auROC,
/// auPRC) or "auto" (max unless the name contains "loss"). Throws Error naming `owner` for any
/// other mode.
bool monitor_maximizes(const std::string& monitor, const std::string& mode, const char* owner);

/// Settings of EarlyStopping.
struct EarlyStoppingOptions {
  /// The EpochLogs value watched (must be logged every epoch, else on_epoch_end() throws).
  std::string monitor = "val_loss";
  /// Epochs without improvement before training stops (>= 0).
  int64_t patience = 3;
  /// The smallest change that counts as an improvement.
  double min_delta = 0.0;
  /// "min" for losses, "max" for accuracy/auROC/auPRC; "auto" picks from the name.
  std::string mode = "auto";
  /// Keep a copy of the best epoch's parameters and copy them back at on_train_end().
  bool restore_best_weights = true;
};

/// Stops when `monitor` has not improved by more than min_delta for `patience` epochs, and
/// (optionally) puts the best epoch's weights back at the end.
class EarlyStopping : public Callback {
 public:
  /// Throws Error when patience < 0 or mode is not "min", "max" or "auto".
  explicit EarlyStopping(EarlyStoppingOptions options = {});
  /// Does nothing.
  void on_train_begin(FitContext& context) override;
  /// Records an improvement (and copies the weights) or counts a non-improving epoch,
  /// setting stop_training after `patience` of them. NaN never improves. Throws Error when
  /// `monitor` is not in `logs`.
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;
  /// Copies the best weights back into the model (when restore_best_weights and any kept).
  void on_train_end(FitContext& context) override;

  /// The 0-based epoch of the best value so far; -1 before any improvement.
  int64_t best_epoch() const { return best_epoch_; }
  /// The best monitored value so far (+/-infinity before any improvement).
  double best_value() const { return best_; }
  /// For checkpoints: best value, best epoch and wait count, and restoring them on resume.
  CheckpointMetadata state() const;
  /// Restores what state() saved plus the best weights; throws Error when a key is missing.
  void restore(const CheckpointMetadata& state, std::vector<Tensor> best_weights);
  /// Copies of the parameters at the best epoch (empty unless restore_best_weights).
  const std::vector<Tensor>& best_weights() const { return best_weights_; }

 private:
  bool improved(double value) const;

  EarlyStoppingOptions options_;
  bool maximize_ = false;
  double best_;
  int64_t best_epoch_ = -1;
  int64_t wait_ = 0;
  std::vector<Tensor> best_weights_;
};

/// Writes `directory`/last.safetensors after every epoch (model, optimizer, position) and
/// `directory`/best.safetensors (model only) when `monitor` improves.
class ModelCheckpoint : public Callback {
 public:
  /// `monitor` is maximised unless its name contains "loss". `extra_metadata` (optional)
  /// supplies further metadata entries for every checkpoint. `is_best` (optional) replaces the
  /// checkpoint's own tracking of `monitor`: pass EarlyStopping's verdict so that a resumed run,
  /// whose best so far comes from the checkpoint, never overwrites the true best.
  ModelCheckpoint(std::filesystem::path directory, std::string monitor = "val_loss",
                  bool save_best = true, bool save_last = true,
                  std::function<CheckpointMetadata()> extra_metadata = nullptr,
                  std::function<bool(const EpochLogs&)> is_best = nullptr);
  /// Writes best (if `monitor` is logged, not NaN and improved) and then last.
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;
  /// Writes last (when save_last) mid-epoch, with the PartialEpoch in its metadata
  /// (partial_epoch_metadata) so that a resume finishes the epoch; best is left alone.
  void on_train_interrupted(FitContext& context, const PartialEpoch& partial) override;

 private:
  /// Whether this epoch is the best so far (updating the checkpoint's own record).
  bool improved(const EpochLogs& logs);

  std::filesystem::path directory_;
  std::string monitor_;
  bool save_best_, save_last_;
  std::function<CheckpointMetadata()> extra_metadata_;
  std::function<bool(const EpochLogs&)> is_best_;
  std::optional<double> best_;
};

/// Scalars per epoch ("epoch/<name>") and every `every_steps` steps ("step/loss",
/// "step/samples_per_second", "step/learning_rate").
class TensorBoardLogger : public Callback {
 public:
  /// Writes into `log_dir`; `every_steps` <= 0 disables the per-step scalars.
  TensorBoardLogger(std::filesystem::path log_dir, int64_t every_steps = 50);
  /// Step scalars when global_step is a multiple of `every_steps`.
  void on_batch_end(FitContext& context, const BatchLogs& logs) override;
  /// Every logged value as "epoch/<name>" at step epoch + 1, then flushes.
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;
  /// Flushes the event file.
  void on_train_end(FitContext& context) override;
  /// Flushes the event file.
  void on_train_interrupted(FitContext& context, const PartialEpoch& partial) override;

 private:
  SummaryWriter writer_;
  int64_t every_steps_;
};

/// metrics.csv: one row per epoch.
class CsvEpochLogger : public Callback {
 public:
  /// Columns epoch, loss, accuracy, learning_rate, samples_per_second, epoch_seconds, plus
  /// val_loss, val_accuracy, val_auroc, val_auprc `with_validation`.
  CsvEpochLogger(std::filesystem::path path, bool with_validation);
  /// Appends the epoch's row (epoch 1-based); throws Error when a column's value is missing.
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;

 private:
  CsvLogger logger_;
};

/// steps.csv: global step, epoch and the loss of every step (shortest round-trip digits, so
/// the value is exact).
class StepLossLogger : public Callback {
 public:
  /// Columns step, epoch, loss in the CSV file at `path`.
  explicit StepLossLogger(std::filesystem::path path);
  /// Appends the step's row (global step, 1-based epoch, loss).
  void on_batch_end(FitContext& context, const BatchLogs& logs) override;
  /// Does nothing.
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;

 private:
  CsvLogger logger_;
};

/// The progress bar plus a one-line epoch summary.
class ProgressLogger : public Callback {
 public:
  /// Writes to `out` (which must outlive the logger); see ProgressBar for `interactive` and
  /// `log_every_steps` (values below 1 mean 1).
  ProgressLogger(std::ostream& out, bool interactive, int64_t log_every_steps);
  /// Starts the bar for the epoch.
  void on_epoch_begin(FitContext& context, int64_t epoch) override;
  /// Advances the bar by one step.
  void on_batch_end(FitContext& context, const BatchLogs& logs) override;
  /// Finishes the bar and prints the epoch's losses, metrics, throughput and duration.
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;
  /// Finishes the bar and says where training stopped.
  void on_train_interrupted(FitContext& context, const PartialEpoch& partial) override;

 private:
  std::ostream& out_;
  ProgressBar bar_;
  bool started_ = false;
};

}  // namespace strand::train
