// Adam update through the registered fused kernel.
#include "optim/adam.h"

#include "tensor/op_declarations.h"

namespace strand {

Adam::Adam(std::vector<Var> parameters, AdamOptions options)
    : Optimizer(std::move(parameters), options.learning_rate), options_(options) {
  STRAND_CHECK(options.beta1 >= 0 && options.beta1 < 1 && options.beta2 >= 0 && options.beta2 < 1,
               "Adam: betas must be in [0, 1), got {} and {}", options.beta1, options.beta2);
  STRAND_CHECK(options.eps > 0, "Adam: eps must be positive, got {}", options.eps);
}

void Adam::update(size_t index, Var& parameter) {
  Tensor& exp_avg = buffer(index, "exp_avg");
  Tensor& exp_avg_sq = buffer(index, "exp_avg_sq");
  AdamParams params{learning_rate(), options_.beta1,        options_.beta2,
                    options_.eps,    options_.weight_decay, step_count()};
  const Tensor grad = parameter.grad().contiguous();
  dispatch<AdamUpdateOp>(parameter.device(), parameter.mutable_value(), grad, exp_avg, exp_avg_sq,
                         params);
}

}  // namespace strand
