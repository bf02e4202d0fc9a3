// Adam with bias correction and optional L2 weight decay (PyTorch's formula), and AdamW with
// decoupled weight decay.
//
// Epsilon defaults to 1e-7, the Keras default that the reference DragoNN experiment trained
// with, rather than PyTorch's 1e-8: with float32 gradients of the size a small sequence CNN
// produces, 1e-7 keeps the first steps of parameters whose second moment is still tiny from
// jumping by a full learning rate. Pass 1e-8 to reproduce torch.optim.Adam exactly.
#pragma once

#include "kernels/optimizer_math.h"
#include "optim/optimizer.h"

namespace strand {

/// Hyper-parameters of Adam (PyTorch's names and formula; eps defaults to Keras's 1e-7). One
/// struct from here down to the kernels (kernels/optimizer_math.h).
using AdamOptions = kernels::AdamHyperParameters;

/// Adam with bias correction and optional L2 weight decay.
class Adam : public Optimizer {
 public:
  /// Optimizes `parameters` (e.g. model.trainable_parameters()).
  Adam(std::vector<Var> parameters, AdamOptions options = {});
  std::string name() const override { return "Adam"; }

 protected:
  /// One parameter; on a CUDA device the learning rate and step come from the device
  /// schedule (schedule_for), so a captured step replays right.
  void update(size_t index, Var& parameter) override;
  /// On a CUDA device with float32 contiguous parameters: one multi-tensor update reading the
  /// device schedule; else per parameter.
  void update_all(const std::vector<size_t>& active) override;

 private:
  // The options with the learning rate in force now (schedules change it).
  AdamOptions current_hyper_parameters() const;

  AdamOptions options_;
};

/// AdamW: Adam with decoupled weight decay (torch.optim.AdamW): each step first shrinks the
/// parameter by lr * weight_decay, then applies Adam without the penalty in the gradient.
/// weight_decay defaults to PyTorch's 1e-2.
class AdamW : public Adam {
 public:
  AdamW(std::vector<Var> parameters, AdamOptions options = {.weight_decay = 1e-2});
  std::string name() const override { return "AdamW"; }
};

}  // namespace strand
