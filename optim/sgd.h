// SGD with momentum, dampening, Nesterov momentum and L2 weight decay (PyTorch semantics).
#pragma once

#include "optim/optimizer.h"

namespace strand {

/// Hyper-parameters of SGD (PyTorch's semantics).
struct SGDOptions {
  double learning_rate = 0.01;  ///< step size
  double momentum = 0.0;        ///< momentum factor (0: plain SGD)
  double dampening = 0.0;       ///< dampening of the momentum
  double weight_decay = 0.0;    ///< L2 penalty added to the gradient
  bool nesterov = false;        ///< Nesterov momentum
};

/// Stochastic gradient descent with optional momentum, dampening and Nesterov.
class SGD : public Optimizer {
 public:
  /// Optimizes `parameters`.
  SGD(std::vector<Var> parameters, SGDOptions options = {});
  std::string name() const override { return "SGD"; }

 protected:
  void update(size_t index, Var& parameter) override;

 private:
  SGDOptions options_;
};

}  // namespace strand
