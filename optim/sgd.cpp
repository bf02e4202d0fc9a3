// SGD update through the registered fused kernel.
#include "optim/sgd.h"

#include "ops/optimizer_updates.h"

namespace strand {

SGD::SGD(std::vector<Var> parameters, SGDOptions options)
    : Optimizer(std::move(parameters), options.learning_rate), options_(options) {
  STRAND_CHECK(!options.nesterov || (options.momentum > 0 && options.dampening == 0),
               "SGD: Nesterov momentum needs momentum > 0 and dampening 0");
}

void SGD::update(size_t index, Var& parameter) {
  const std::string key = "momentum_buffer";
  Tensor no_buffer;
  // PyTorch starts the momentum buffer as the first gradient, not as zero.
  const bool first_step = options_.momentum != 0.0 && !has_buffer(index, key);
  Tensor& momentum = options_.momentum != 0.0 ? buffer(index, key) : no_buffer;
  SGDParams params{learning_rate(),       options_.momentum, options_.dampening,
                   options_.weight_decay, options_.nesterov, first_step};
  ops::sgd_update(parameter.mutable_value(), parameter.grad(), momentum, params,
                  schedule_for(parameter));
}

}  // namespace strand
