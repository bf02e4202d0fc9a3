// DistributedStrategy: the hooks through which train::fit() trains data-parallel. Declared here,
// below train/, so that dist/ implements it without depending on the training loop.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "autograd/var.h"
#include "optim/optimizer.h"

namespace strand::dist {

/// Hooks through which fit() trains data-parallel (MirroredStrategy,
/// ParameterAveraging). Without one, fit() is the single-process loop.
class DistributedStrategy {
 public:
  virtual ~DistributedStrategy() = default;
  /// This process's rank, 0-based.
  virtual int rank() const = 0;
  /// The number of ranks.
  virtual int world_size() const = 0;
  /// Once before the first step: every rank starts from rank 0's values of `parameters`
  /// (every parameter and buffer of the model, Module::parameters(): the same list, in the same
  /// order, on every rank); `optimizer` updates the trainable ones.
  virtual void on_train_begin(const std::vector<Var>& parameters, Optimizer& optimizer) = 0;
  /// Before each backward pass (gradient hooks start collecting).
  virtual void before_backward() {}
  /// Between backward and optimizer.step(): gradients become the same on every rank.
  virtual void finish_gradients() {}
  /// After each optimizer.step().
  virtual void after_step() {}
  /// After an epoch's last step, before validation: parameters agree on every rank.
  virtual void on_epoch_end() {}
  /// Once after training ends normally (not when fit() throws).
  virtual void on_train_end() {}
  /// Element-wise sum over ranks (metric sums and counts).
  virtual std::vector<double> sum(std::vector<double> values) = 0;
  /// Every rank's values concatenated in rank order (scores and labels for auROC/auPRC).
  virtual std::vector<double> all_gather(std::span<const double> values) = 0;
  /// This rank failed on its own while its peers may wait in a collective for it: end the
  /// whole job with `what` (does not return when there are other ranks).
  virtual void on_local_failure(const std::string& what) = 0;
};

}  // namespace strand::dist
