// SGD with momentum, dampening, Nesterov momentum and L2 weight decay (PyTorch semantics).
#pragma once

#include "optim/optimizer.h"

namespace strand {

struct SGDOptions {
  double learning_rate = 0.01;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Var> parameters, SGDOptions options = {});
  std::string name() const override { return "SGD"; }

 protected:
  void update(size_t index, Var& parameter) override;

 private:
  SGDOptions options_;
};

}  // namespace strand
