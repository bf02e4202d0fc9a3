// Callback: hooks into the fit loop (Keras-like). The loop reports each batch and each epoch;
// callbacks log, checkpoint, or ask the loop to stop.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "layers/model.h"
#include "optim/optimizer.h"
#include "train/partial_epoch.h"

namespace strand::train {

/// Values of one epoch: the training pass's "loss", "accuracy" (binary labels), "learning_rate",
/// "samples_per_second", "epoch_seconds", and with validation data "val_" + every figure of
/// Evaluation::values ("val_loss", "val_auroc", "val_mean_auroc", "val_auroc/<task>", ...);
/// train/metric_names.h lists them before a run starts.
struct EpochLogs {
  /// The epoch's number, 0-based.
  int64_t epoch = 0;
  /// Optimizer steps taken so far (counting those before a resume).
  int64_t global_step = 0;
  /// The epoch's figures by name (see above).
  std::map<std::string, double> values;
  /// values[key]; throws Error when the epoch has no value `key`.
  double get(const std::string& key) const;
};

/// Figures of one training step, passed to Callback::on_batch_end().
struct BatchLogs {
  /// The epoch's number, 0-based.
  int64_t epoch = 0;
  /// The step's position in its epoch, 0-based.
  int64_t step_in_epoch = 0;
  /// Optimizer steps per epoch on this rank.
  int64_t steps_per_epoch = 0;
  /// Optimizer steps taken so far, including this one.
  int64_t global_step = 0;
  /// Examples in this step's batch (on this rank).
  int64_t batch_size = 0;
  /// The batch's mean training loss (agreed over ranks when data-parallel).
  double loss = 0.0;
  /// Training throughput of this epoch so far (this rank).
  double samples_per_second = 0.0;
};

/// Where a training step starts, passed to Callback::on_batch_begin().
struct BatchStart {
  /// The epoch's number, 0-based.
  int64_t epoch = 0;
  /// The step's position in its epoch, 0-based.
  int64_t step_in_epoch = 0;
  /// Optimizer steps taken before this one (counting those before a resume).
  int64_t global_step = 0;
};

/// What callbacks may read and change while fit runs.
struct FitContext {
  /// The model being trained.
  Model& model;
  /// The optimizer stepping `model`'s parameters.
  Optimizer& optimizer;
  /// Set to true to end training after the current epoch.
  bool stop_training = false;
  /// The planned number of epochs.
  int64_t epochs = 0;
  /// Optimizer steps per epoch on this rank.
  int64_t steps_per_epoch = 0;
};

/// Base class of fit() callbacks; every hook does nothing by default.
class Callback {
 public:
  virtual ~Callback() = default;
  /// Once, before the first epoch.
  virtual void on_train_begin(FitContext&) {}
  /// Before each epoch's first step (`epoch` is 0-based).
  virtual void on_epoch_begin(FitContext&, int64_t /*epoch*/) {}
  /// Before each step is queued: what changes the step (the learning rate) belongs here.
  virtual void on_batch_begin(FitContext&, const BatchStart&) {}
  /// After each optimizer step, with its figures. On a GPU the step's loss is read one step
  /// late (so the device never waits for the host): this runs after the next step has been
  /// queued, and is for logging, not for changing how training goes on.
  virtual void on_batch_end(FitContext&, const BatchLogs&) {}
  /// After each epoch, its validation included.
  virtual void on_epoch_end(FitContext&, const EpochLogs&) {}
  /// Once, after the last epoch (not when training throws or is interrupted).
  virtual void on_train_end(FitContext&) {}
  /// Once, instead of on_train_end(), when FitOptions::should_stop stopped training part-way
  /// through epoch `partial.epoch` (save what a resume needs here).
  virtual void on_train_interrupted(FitContext&, const PartialEpoch& /*partial*/) {}
};

}  // namespace strand::train
