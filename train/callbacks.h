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

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  int64_t patience = 3;
  double min_delta = 0.0;
  /// "min" for losses, "max" for accuracy/auROC/auPRC; "auto" picks from the name.
  std::string mode = "auto";
  bool restore_best_weights = true;
};

/// Stops when `monitor` has not improved by more than min_delta for `patience` epochs, and
/// (optionally) puts the best epoch's weights back at the end.
class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});
  void on_train_begin(FitContext& context) override;
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;
  void on_train_end(FitContext& context) override;

  int64_t best_epoch() const { return best_epoch_; }
  double best_value() const { return best_; }
  /// For checkpoints: best value, best epoch and wait count, and restoring them on resume.
  CheckpointMetadata state() const;
  void restore(const CheckpointMetadata& state, std::vector<Tensor> best_weights);
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

/// Writes <dir>/last.safetensors after every epoch (model, optimizer, position) and
/// <dir>/best.safetensors when `monitor` improves.
class ModelCheckpoint : public Callback {
 public:
  ModelCheckpoint(std::filesystem::path directory, std::string monitor = "val_loss",
                  bool save_best = true, bool save_last = true,
                  std::function<CheckpointMetadata()> extra_metadata = nullptr);
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;

 private:
  std::filesystem::path directory_;
  std::string monitor_;
  bool save_best_, save_last_;
  std::function<CheckpointMetadata()> extra_metadata_;
  std::optional<double> best_;
};

/// Scalars per epoch ("epoch/<name>") and every `every_steps` steps ("step/loss",
/// "step/samples_per_second", "step/learning_rate").
class TensorBoardLogger : public Callback {
 public:
  TensorBoardLogger(std::filesystem::path log_dir, int64_t every_steps = 50);
  void on_batch_end(FitContext& context, const BatchLogs& logs) override;
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;
  void on_train_end(FitContext& context) override;

 private:
  SummaryWriter writer_;
  int64_t every_steps_;
};

/// metrics.csv: one row per epoch.
class CsvEpochLogger : public Callback {
 public:
  CsvEpochLogger(std::filesystem::path path, bool with_validation);
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;

 private:
  CsvLogger logger_;
};

/// steps.csv: global step, epoch and the loss of every step (shortest round-trip digits, so
/// the value is exact).
class StepLossLogger : public Callback {
 public:
  explicit StepLossLogger(std::filesystem::path path);
  void on_batch_end(FitContext& context, const BatchLogs& logs) override;
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;

 private:
  CsvLogger logger_;
};

/// The progress bar plus a one-line epoch summary.
class ProgressLogger : public Callback {
 public:
  ProgressLogger(std::ostream& out, bool interactive, int64_t log_every_steps);
  void on_epoch_begin(FitContext& context, int64_t epoch) override;
  void on_batch_end(FitContext& context, const BatchLogs& logs) override;
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;

 private:
  std::ostream& out_;
  ProgressBar bar_;
  bool started_ = false;
};

}  // namespace strand::train
