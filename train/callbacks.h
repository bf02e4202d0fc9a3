// The standard callbacks: early stopping, checkpoints, TensorBoard, CSV, progress, and a
// per-step loss log (the record that resume is checked against).
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "train/callback.h"
#include "train/checkpoint.h"
#include "train/csv_logger.h"
#include "train/metric_names.h"
#include "train/progress_bar.h"
#include "train/tensorboard.h"

namespace strand::train {

/// Whether `monitor` improves upward under `mode`: "min" (losses), "max" (accuracy, auROC,
/// auPRC) or "auto" (min for a loss, is_loss_name(), else max). Throws Error naming `owner` for
/// any other mode.
bool monitor_maximizes(const std::string& monitor, const std::string& mode, const char* owner);

/// Settings of EarlyStopping.
struct EarlyStoppingOptions {
  /// The EpochLogs value watched, any figure the run logs ("val_loss", "val_mean_auroc",
  /// "val_auroc/CTCF"); it must be logged every epoch, else on_epoch_end() throws.
  std::string monitor = "val_loss";
  /// Epochs without improvement before training stops (>= 0).
  int64_t patience = 3;
  /// The smallest change that counts as an improvement.
  double min_delta = 0.0;
  /// "min" for losses, "max" for accuracy/auROC/auPRC; "auto" picks from the name
  /// (is_loss_name()).
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
  /// `monitor` is minimised when it is a loss (is_loss_name()), else maximised. `extra_metadata`
  /// (optional)
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

/// TensorBoard event files laid out as Keras writes them: one run directory per split under
/// `log_dir` ("train", "validation", "test"), each figure under the same tag in every run, so
/// that TensorBoard draws the training and validation curves of a metric in one chart.
///   train/:       epoch_<key> of each training figure at step epoch + 1 (epoch_loss,
///                 epoch_accuracy, epoch_learning_rate, ...), and every `every_steps` steps
///                 batch_loss, batch_learning_rate, batch_samples_per_second at the global step;
///   validation/:  epoch_<key> of each "val_<key>" figure at step epoch + 1 (epoch_loss,
///                 epoch_auroc, epoch_mean_auroc, epoch_auroc/<task>, epoch_<output>_loss, ...);
///   test/ (or any other run of log_evaluation()): epoch_<key> of an evaluation's figures.
/// The train run's directory and event file are made at construction, the others' when their
/// first scalar comes. Event files are append-only: a resumed run adds new files beside the old
/// ones.
class TensorBoardLogger : public Callback {
 public:
  /// Writes under `log_dir`; `every_steps` <= 0 disables the per-step scalars.
  TensorBoardLogger(std::filesystem::path log_dir, int64_t every_steps = 50);
  /// Step scalars when global_step is a multiple of `every_steps`.
  void on_batch_end(FitContext& context, const BatchLogs& logs) override;
  /// Every logged value at step epoch + 1: "val_<key>" as epoch_<key> in the validation run,
  /// the others as epoch_<key> in the train run; then flushes.
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;
  /// Flushes the event files.
  void on_train_end(FitContext& context) override;
  /// Flushes the event files.
  void on_train_interrupted(FitContext& context, const PartialEpoch& partial) override;
  /// Writes `values` (Evaluation::values) as epoch_<key> at `step` in the run directory `run`
  /// ("test": the final evaluation of the test split, at the last epoch's step), then flushes.
  void log_evaluation(const std::string& run, const std::map<std::string, double>& values,
                      int64_t step);

 private:
  /// The writer of run directory `run`, made on first use.
  SummaryWriter& writer(const std::string& run);
  void flush();

  std::filesystem::path log_dir_;
  int64_t every_steps_;
  std::map<std::string, std::unique_ptr<SummaryWriter>> writers_;
};

/// metrics.csv: one row per epoch, under a header fixed when the run starts.
class CsvEpochLogger : public Callback {
 public:
  /// Columns "epoch" (1-based) and then `metrics`, the figures the run logs in the order to
  /// write them: epoch_metric_names() of training_metric_names() and evaluation_keys(). An
  /// existing file (a resumed run) must have exactly these columns, else this throws naming
  /// it and the columns that differ.
  CsvEpochLogger(std::filesystem::path path, std::vector<std::string> metrics);
  /// Appends the epoch's row. A column the epoch did not log is left empty; a figure that is
  /// not a column is not written (TensorBoard has every figure).
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

/// The progress bar plus a one-line epoch summary: the training loss, the training accuracy
/// when logged, the main validation figures of every term (main_metric_names(): never the
/// per-task ones), throughput and duration.
class ProgressLogger : public Callback {
 public:
  /// Writes to `out` (which must outlive the logger); see ProgressBar for `interactive` and
  /// `log_every_steps` (values below 1 mean 1). `order` lists the logged figures in the order
  /// to show them (epoch_metric_names()); figures it lacks follow by name.
  ProgressLogger(std::ostream& out, bool interactive, int64_t log_every_steps,
                 std::vector<std::string> order = {});
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
  std::vector<std::string> order_;
  bool started_ = false;
};

}  // namespace strand::train
