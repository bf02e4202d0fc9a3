// Callback: hooks into the fit loop (Keras-like). The loop reports each batch and each epoch;
// callbacks log, checkpoint, or ask the loop to stop.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "layers/sequential.h"
#include "optim/optimizer.h"

namespace strand::train {

/// Values of one epoch: "loss", "accuracy", "val_loss", "val_accuracy", "val_auroc",
/// "val_auprc", "learning_rate", "samples_per_second", "epoch_seconds".
struct EpochLogs {
  int64_t epoch = 0;        // 0-based
  int64_t global_step = 0;  // optimizer steps taken so far
  std::map<std::string, double> values;
  double get(const std::string& key) const;
};

struct BatchLogs {
  int64_t epoch = 0;
  int64_t step_in_epoch = 0;  // 0-based
  int64_t steps_per_epoch = 0;
  int64_t global_step = 0;  // after this step
  int64_t batch_size = 0;
  double loss = 0.0;
  double samples_per_second = 0.0;  // this epoch so far
};

/// What callbacks may read and change while fit runs.
struct FitContext {
  Sequential& model;
  Optimizer& optimizer;
  bool stop_training = false;
  int64_t epochs = 0;           // the planned number of epochs
  int64_t steps_per_epoch = 0;  // optimizer steps per epoch on this rank
};

class Callback {
 public:
  virtual ~Callback() = default;
  virtual void on_train_begin(FitContext&) {}
  virtual void on_epoch_begin(FitContext&, int64_t /*epoch*/) {}
  virtual void on_batch_end(FitContext&, const BatchLogs&) {}
  virtual void on_epoch_end(FitContext&, const EpochLogs&) {}
  virtual void on_train_end(FitContext&) {}
};

}  // namespace strand::train
