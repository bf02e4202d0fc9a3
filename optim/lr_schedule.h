// Learning-rate schedules as functions of the optimizer step (what Keras calls a
// LearningRateSchedule): step decay, and cosine decay after a linear warm-up. The fit loop
// applies one through train::LearningRateScheduler; ReduceLROnPlateau, which follows a metric
// rather than the step, is a callback (train/callbacks.h).
#pragma once

#include <cstdint>

namespace strand {

/// A learning rate for every step.
class LearningRateSchedule {
 public:
  virtual ~LearningRateSchedule() = default;
  /// The rate of the step after `steps_done` steps (0: the first step).
  virtual double rate(int64_t steps_done) const = 0;
};

/// Settings of StepDecay besides its initial rate.
struct StepDecayOptions {
  int64_t step_size = 1000;  ///< optimizer steps between decays (>= 1)
  double gamma = 0.1;        ///< the factor of each decay, in (0, 1]
};

/// Settings of CosineWithWarmup besides its peak rate and length.
struct CosineWithWarmupOptions {
  int64_t warmup_steps = 0;        ///< steps of linear warm-up before the decay
  double min_learning_rate = 0.0;  ///< the rate reached at the end, in [0, peak]
};

/// initial * gamma^(floor(steps_done / step_size)) (PyTorch's StepLR, counted in steps).
class StepDecay : public LearningRateSchedule {
 public:
  /// Throws strand::Error when initial <= 0, step_size < 1 or gamma is outside (0, 1].
  StepDecay(double initial, int64_t step_size, double gamma);
  StepDecay(double initial, const StepDecayOptions& options)
      : StepDecay(initial, options.step_size, options.gamma) {}
  double rate(int64_t steps_done) const override;

 private:
  double initial_;
  int64_t step_size_;
  double gamma_;
};

/// A linear warm-up, peak * (s + 1) / warmup_steps for the steps s before warmup_steps, then a
/// cosine decay from peak to minimum by total_steps (the minimum afterwards).
class CosineWithWarmup : public LearningRateSchedule {
 public:
  /// Throws strand::Error unless 0 <= minimum <= peak, peak > 0 and
  /// 0 <= warmup_steps < total_steps.
  CosineWithWarmup(double peak, int64_t warmup_steps, int64_t total_steps, double minimum = 0.0);
  CosineWithWarmup(double peak, int64_t total_steps, const CosineWithWarmupOptions& options)
      : CosineWithWarmup(peak, options.warmup_steps, total_steps, options.min_learning_rate) {}
  double rate(int64_t steps_done) const override;

 private:
  double peak_;
  int64_t warmup_steps_;
  int64_t total_steps_;
  double minimum_;
};

}  // namespace strand
