// Learning-rate callbacks.
#include "train/lr_callbacks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "train/callbacks.h"

namespace strand::train {

LearningRateScheduler::LearningRateScheduler(std::shared_ptr<const LearningRateSchedule> schedule)
    : schedule_(std::move(schedule)) {
  STRAND_CHECK(schedule_ != nullptr, "LearningRateScheduler: no schedule given");
}

void LearningRateScheduler::on_train_begin(FitContext& context) {
  context.optimizer.set_learning_rate(schedule_->rate(context.optimizer.step_count()));
}

void LearningRateScheduler::on_batch_begin(FitContext& context, const BatchStart& start) {
  context.optimizer.set_learning_rate(schedule_->rate(start.global_step));
}

void LearningRateScheduler::on_batch_end(FitContext& context, const BatchLogs& logs) {
  context.optimizer.set_learning_rate(schedule_->rate(logs.global_step));
}

ReduceLROnPlateau::ReduceLROnPlateau(ReduceLROnPlateauOptions options)
    : options_(std::move(options)) {
  STRAND_CHECK(options_.factor > 0.0 && options_.factor < 1.0,
               "ReduceLROnPlateau: factor must be in (0, 1), got {}", options_.factor);
  STRAND_CHECK(options_.patience >= 0 && options_.min_learning_rate >= 0.0,
               "ReduceLROnPlateau: patience and min_learning_rate must be >= 0, got {} and {}",
               options_.patience, options_.min_learning_rate);
  maximize_ = monitor_maximizes(options_.monitor, options_.mode, "ReduceLROnPlateau");
  best_ = maximize_ ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
}

void ReduceLROnPlateau::on_epoch_end(FitContext& context, const EpochLogs& logs) {
  const auto it = logs.values.find(options_.monitor);
  STRAND_CHECK(it != logs.values.end(),
               "ReduceLROnPlateau: monitored value '{}' is not logged (validation data missing?)",
               options_.monitor);
  const double value = it->second;
  const bool better = !std::isnan(value) && (maximize_ ? value > best_ + options_.min_delta
                                                       : value < best_ - options_.min_delta);
  if (better) {
    best_ = value;
    wait_ = 0;
    return;
  }
  if (++wait_ < options_.patience) return;
  const double current = context.optimizer.learning_rate();
  const double reduced = std::max(current * options_.factor, options_.min_learning_rate);
  if (reduced < current) context.optimizer.set_learning_rate(reduced);
  wait_ = 0;
}

}  // namespace strand::train
