// Learning-rate schedules.
#include "optim/lr_schedule.h"

#include <cmath>

#include "core/error.h"

namespace strand {

StepDecay::StepDecay(double initial, int64_t step_size, double gamma)
    : initial_(initial), step_size_(step_size), gamma_(gamma) {
  STRAND_CHECK(initial > 0.0 && step_size >= 1 && gamma > 0.0 && gamma <= 1.0,
               "StepDecay: need initial > 0, step_size >= 1 and gamma in (0, 1], got {}, {}, {}",
               initial, step_size, gamma);
}

double StepDecay::rate(int64_t steps_done) const {
  return initial_ * std::pow(gamma_, static_cast<double>(steps_done / step_size_));
}

CosineWithWarmup::CosineWithWarmup(double peak, int64_t warmup_steps, int64_t total_steps,
                                   double minimum)
    : peak_(peak), warmup_steps_(warmup_steps), total_steps_(total_steps), minimum_(minimum) {
  STRAND_CHECK(peak > 0.0 && minimum >= 0.0 && minimum <= peak && warmup_steps >= 0 &&
                   warmup_steps < total_steps,
               "CosineWithWarmup: need 0 <= minimum <= peak, peak > 0 and 0 <= warmup_steps < "
               "total_steps, got peak {}, minimum {}, warmup {}, total {}",
               peak, minimum, warmup_steps, total_steps);
}

double CosineWithWarmup::rate(int64_t steps_done) const {
  if (steps_done < warmup_steps_) {
    return peak_ * static_cast<double>(steps_done + 1) / static_cast<double>(warmup_steps_);
  }
  if (steps_done >= total_steps_) return minimum_;
  const double progress = static_cast<double>(steps_done - warmup_steps_) /
                          static_cast<double>(total_steps_ - warmup_steps_);
  constexpr double kPi = 3.14159265358979323846;
  return minimum_ + 0.5 * (peak_ - minimum_) * (1.0 + std::cos(kPi * progress));
}

}  // namespace strand
