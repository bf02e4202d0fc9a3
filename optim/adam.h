// Adam with bias correction and optional L2 weight decay (PyTorch's formula).
//
// Epsilon defaults to 1e-7, the Keras default that the reference DragoNN experiment trained
// with, rather than PyTorch's 1e-8: with float32 gradients of the size a small sequence CNN
// produces, 1e-7 keeps the first steps of parameters whose second moment is still tiny from
// jumping by a full learning rate. Pass 1e-8 to reproduce torch.optim.Adam exactly.
#pragma once

#include "optim/optimizer.h"

namespace strand {

struct AdamOptions {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-7;
  double weight_decay = 0.0;
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<Var> parameters, AdamOptions options = {});
  std::string name() const override { return "Adam"; }

 protected:
  void update(size_t index, Var& parameter) override;

 private:
  AdamOptions options_;
};

}  // namespace strand
