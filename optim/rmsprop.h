// RMSprop with optional momentum and centering (PyTorch's formula; alpha is Keras's rho).
#pragma once

#include "optim/optimizer.h"

namespace strand {

struct RMSpropOptions {
  double learning_rate = 1e-3;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0.0;
  double momentum = 0.0;
  bool centered = false;
};

class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<Var> parameters, RMSpropOptions options = {});
  std::string name() const override { return "RMSprop"; }

 protected:
  void update(size_t index, Var& parameter) override;

 private:
  RMSpropOptions options_;
};

}  // namespace strand
