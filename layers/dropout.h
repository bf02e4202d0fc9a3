// Dropout layer: in training mode each element is dropped with probability `rate` (the
// survivors scaled by 1 / (1 - rate)); in evaluation mode it passes x through. The mask of a
// forward pass is a function of (the layer's seed, the training step, the element), so runs are
// reproducible, fit() resumes bit for bit, and CPU and GPU draw the same masks.
#pragma once

#include <cstdint>

#include "layers/layer.h"
#include "ops/dropout.h"

namespace strand {

class Dropout : public Layer {
 public:
  /// rate in [0, 1). The seed defaults to a draw from default_generator() (manual_seed makes
  /// it reproducible, as for weights).
  explicit Dropout(double rate);
  Dropout(double rate, uint64_t seed);

  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override { return input; }
  std::string type_name() const override { return "Dropout"; }
  /// fit() sets the training step before every step; without it the layer counts its own
  /// training forward passes.
  void set_step(int64_t step) override { step_ = step; }
  /// With a step tensor, masks follow its value (read on the device), not set_step()'s.
  void set_step_tensor(const Tensor& step) override;

  double rate() const { return rate_; }
  uint64_t seed() const { return seed_; }

 private:
  double rate_;
  uint64_t seed_;
  int64_t step_ = 0;
  Tensor step_tensor_;  // () or (1) int64 on the layer's device; undefined: step_ counts
};

}  // namespace strand
