// CudaGraphStep: fit()'s training step as a CUDA graph, for single-GPU training. The whole step
// (gradients zeroed in place, forward, loss, backward, clipping, the optimizer update, the
// max-norm constraint, the training accuracy) is captured once and then replayed for each
// batch of the same shapes: one graph launch instead of hundreds of kernel launches.
//
// The first batch runs the step eagerly as its warm-up: gradients, optimizer state and its
// device schedule, cuDNN plans, the conv engine's timed choices and cuBLAS's handle come to
// exist there, so the capture allocates nothing that must outlive it. The second batch is
// captured and replayed, later ones replayed. Every batch is first copied into fixed device
// buffers (the graph reads its inputs there), and the step's loss lands in a fixed device
// scalar. What changes between replays lives on the device and is written before each one:
// the optimizer's learning rate and step (Optimizer's schedule), Dropout's step
// (Module::set_step_tensor), the accuracy sums.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "data/loader/batch.h"
#include "optim/optimizer.h"
#include "train/training_batch.h"

namespace strand::train {

class CudaGraphStep {
 public:
  /// Queues one training step on `batch` (device tensors in fixed buffers): writes the batch's
  /// loss into `loss` (a device scalar of the loss's dtype; the body allocates it when
  /// undefined, which only the eager warm-up does). Must read nothing back to the host.
  using Body = std::function<void(const TrainingBatch& batch, Tensor& loss)>;

  /// Steps on `device` (a CUDA device) that update `optimizer`'s parameters through `body`.
  /// Throws naming what is missing when the CUDA backend module cannot be loaded.
  CudaGraphStep(Device device, Optimizer& optimizer, Body body);
  ~CudaGraphStep();
  CudaGraphStep(const CudaGraphStep&) = delete;
  CudaGraphStep& operator=(const CudaGraphStep&) = delete;

  /// Whether the first batch has fixed the shapes (and so the buffers) of the step.
  bool shapes_fixed() const;
  /// Whether `batch` has the shapes this step runs: those of the first batch it ran (any,
  /// before that). Others (an epoch's smaller last batch) must run eagerly, with the gradients
  /// zeroed in place: the graph holds on to the gradient buffers.
  bool fits(const data::Batch& batch) const;
  /// Copies `batch` into the fixed buffers and queues the step (the eager warm-up, the capture
  /// and its first replay, or a replay). Returns the device scalar holding its loss, valid
  /// until the next run. A failed capture throws Error naming the cause.
  const Tensor& run(const data::Batch& batch);

  /// Whether a graph has been captured.
  bool captured() const;
  /// The steps run from the graph so far (the capture's own replay included).
  int64_t replays() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strand::train
