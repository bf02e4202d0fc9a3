// ParameterAveraging: local SGD, as DL4J's ParallelWrapper does it. Each rank takes optimizer
// steps on its own shard without communicating; every `average_every` steps (and at every
// epoch end, so validation and checkpoints see one model) the parameters, and optionally the
// optimizer state, are replaced by their mean over ranks. Far less communication than
// MirroredStrategy, at the price of ranks drifting apart between averages.
#pragma once

#include "dist/strategy.h"

namespace strand::dist {

struct ParameterAveragingOptions {
  int64_t average_every = 8;
  /// Also average the optimizer's buffers (momentum, Adam moments); the step count is equal
  /// on every rank already.
  bool average_optimizer_state = false;
  bool broadcast_initial_parameters = true;
};

class ParameterAveraging : public StrategyBase {
 public:
  ParameterAveraging(std::shared_ptr<Communicator> communicator,
                     ParameterAveragingOptions options = {});

  void on_train_begin(const std::vector<Var>& parameters, Optimizer& optimizer) override;
  void after_step() override;
  void on_epoch_end() override;

  /// Averages now (parameters, and the optimizer state when configured).
  void average();
  int64_t averages_done() const { return averages_; }

 private:
  ParameterAveragingOptions options_;
  std::vector<Var> parameters_;
  Optimizer* optimizer_ = nullptr;
  int64_t steps_since_average_ = 0;
  int64_t averages_ = 0;
};

}  // namespace strand::dist
