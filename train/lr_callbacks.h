// Callbacks that change the learning rate: LearningRateScheduler applies a schedule of the step
// (optim/lr_schedule.h); ReduceLROnPlateau divides the rate when a monitored value stops
// improving (Keras's callback of that name).
#pragma once

#include <memory>
#include <string>

#include "optim/lr_schedule.h"
#include "train/callback.h"

namespace strand::train {

/// Sets the optimizer's learning rate to schedule.rate(steps done) before every step
/// (on_batch_begin, so also before a GPU step is queued). A resumed run continues the schedule:
/// the optimizer's restored step count is where it picks up. After each step it sets the next
/// step's rate, which an epoch's logged "learning_rate" shows.
class LearningRateScheduler : public Callback {
 public:
  explicit LearningRateScheduler(std::shared_ptr<const LearningRateSchedule> schedule);
  void on_train_begin(FitContext& context) override;
  void on_batch_begin(FitContext& context, const BatchStart& start) override;
  void on_batch_end(FitContext& context, const BatchLogs& logs) override;

 private:
  std::shared_ptr<const LearningRateSchedule> schedule_;
};

/// Settings of ReduceLROnPlateau (Keras's defaults; min_learning_rate is Keras's min_lr).
struct ReduceLROnPlateauOptions {
  std::string monitor = "val_loss";
  double factor = 0.1;             ///< the rate is multiplied by this, in (0, 1)
  int64_t patience = 10;           ///< epochs without improvement before a reduction
  double min_delta = 1e-4;         ///< the smallest change that counts as an improvement
  double min_learning_rate = 0.0;  ///< the rate never goes below this
  std::string mode = "auto";       ///< "min", "max" or "auto" (from the name)
};

/// Multiplies the learning rate by `factor` after `patience` epochs in which `monitor` did not
/// improve by more than min_delta, then waits `patience` epochs again; never below
/// min_learning_rate.
class ReduceLROnPlateau : public Callback {
 public:
  /// Throws Error on a factor outside (0, 1), a negative patience or min_learning_rate, or a bad
  /// mode.
  explicit ReduceLROnPlateau(ReduceLROnPlateauOptions options = {});
  /// Throws Error naming the monitored value when the epoch did not log it.
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;

 private:
  ReduceLROnPlateauOptions options_;
  bool maximize_ = false;
  double best_;
  int64_t wait_ = 0;
};

}  // namespace strand::train
