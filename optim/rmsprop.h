// RMSprop with optional momentum and centering (PyTorch's formula; alpha is Keras's rho).
#pragma once

#include "optim/optimizer.h"

namespace strand {

/// Hyper-parameters of RMSprop (PyTorch's semantics).
struct RMSpropOptions {
  double learning_rate = 1e-3;  ///< step size
  double alpha = 0.99;          ///< decay of the squared-gradient average
  double eps = 1e-8;            ///< added to the denominator
  double weight_decay = 0.0;    ///< L2 penalty added to the gradient
  double momentum = 0.0;        ///< momentum factor
  bool centered = false;        ///< normalize by the gradient's variance estimate
};

/// RMSprop, optionally centered and with momentum.
class RMSprop : public Optimizer {
 public:
  /// Optimizes `parameters`.
  RMSprop(std::vector<Var> parameters, RMSpropOptions options = {});
  std::string name() const override { return "RMSprop"; }

 protected:
  void update(size_t index, Var& parameter) override;

 private:
  RMSpropOptions options_;
};

}  // namespace strand
