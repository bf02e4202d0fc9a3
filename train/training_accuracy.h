// TrainingAccuracy: the fraction of kept labels that a training step's outputs predict, summed
// on the model's device so that a GPU step needs no host synchronisation; read once per epoch.
#pragma once

#include <utility>

#include "tensor/tensor.h"
#include "train/training_batch.h"

namespace strand::train {

class TrainingAccuracy {
 public:
  /// Predicts 1 where an output exceeds `threshold` (0 for logits, 0.5 for probabilities).
  TrainingAccuracy(Device device, double threshold);

  /// Adds a step. outputs: (B, T) scores; batch.labels (B, T) 0/1; batch.label_mask (B, T),
  /// 0 = not counted. Queues a few small kernels; reads nothing back.
  void add(const Tensor& outputs, const TrainingBatch& batch);

  /// (correct, counted) since construction or the last reset(). Synchronises with the device.
  std::pair<double, double> totals() const;
  /// Zeroes the sums in place: their buffers stay, so a training step captured into a CUDA
  /// graph goes on adding into them.
  void reset();

 private:
  Device device_;
  double threshold_;
  Tensor correct_;  // () float64 on device_
  Tensor counted_;  // () float64 on device_
};

}  // namespace strand::train
