// RMSprop update through the registered fused kernel.
#include "optim/rmsprop.h"

#include "ops/optimizer_updates.h"

namespace strand {

RMSprop::RMSprop(std::vector<Var> parameters, RMSpropOptions options)
    : Optimizer(std::move(parameters), options.learning_rate), options_(options) {
  STRAND_CHECK(options.alpha >= 0 && options.alpha < 1, "RMSprop: alpha must be in [0, 1), got {}",
               options.alpha);
}

void RMSprop::update(size_t index, Var& parameter) {
  Tensor none_avg, none_momentum;
  Tensor& square_avg = buffer(index, "square_avg");
  Tensor& grad_avg = options_.centered ? buffer(index, "grad_avg") : none_avg;
  Tensor& momentum = options_.momentum > 0 ? buffer(index, "momentum_buffer") : none_momentum;
  RMSpropParams params{learning_rate(),       options_.alpha,    options_.eps,
                       options_.weight_decay, options_.momentum, options_.centered};
  ops::rmsprop_update(parameter.mutable_value(), parameter.grad(), square_avg, grad_avg, momentum,
                      params, schedule_for(parameter));
}

}  // namespace strand
