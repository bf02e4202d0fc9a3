// Adam update through the registered fused kernel.
#include "optim/adam.h"

#include <vector>

#include "ops/optimizer_updates.h"

namespace strand {

Adam::Adam(std::vector<Var> parameters, AdamOptions options)
    : Optimizer(std::move(parameters), options.learning_rate), options_(options) {
  STRAND_CHECK(options.beta1 >= 0 && options.beta1 < 1 && options.beta2 >= 0 && options.beta2 < 1,
               "Adam: betas must be in [0, 1), got {} and {}", options.beta1, options.beta2);
  STRAND_CHECK(options.eps > 0, "Adam: eps must be positive, got {}", options.eps);
}

AdamOptions Adam::current_hyper_parameters() const {
  AdamOptions now = options_;
  now.learning_rate = learning_rate();  // after any schedule
  return now;
}

void Adam::update(size_t index, Var& parameter) {
  Tensor& exp_avg = buffer(index, "exp_avg");
  Tensor& exp_avg_sq = buffer(index, "exp_avg_sq");
  const AdamParams params{current_hyper_parameters(), step_count()};
  ops::adam_update(parameter.mutable_value(), parameter.grad(), exp_avg, exp_avg_sq, params,
                   schedule_for(parameter));
}

namespace {
// The multi-tensor path needs one CUDA device and float32 contiguous tensors throughout.
bool fits_multi_tensor(const std::vector<Var>& parameters, const std::vector<size_t>& active) {
  if (active.empty()) return false;
  const Device device = parameters[active[0]].device();
  if (!device.is_cuda() || !OpKernels<AdamScheduledUpdateOp>::has_kernel(device.type)) {
    return false;
  }
  for (size_t i : active) {
    const Var& p = parameters[i];
    if (p.device() != device || p.dtype() != DType::kFloat32 || !p.value().is_contiguous() ||
        !p.grad().is_contiguous() || p.grad().dtype() != DType::kFloat32) {
      return false;
    }
  }
  return true;
}
}  // namespace

void Adam::update_all(const std::vector<size_t>& active) {
  if (!fits_multi_tensor(parameters(), active)) return Optimizer::update_all(active);
  const Tensor& schedule = schedule_for(parameters()[active[0]]);
  if (!schedule.defined()) return Optimizer::update_all(active);
  std::vector<Tensor*> values, exp_avgs, exp_avg_sqs;
  std::vector<const Tensor*> grads;
  for (size_t i : active) {
    exp_avgs.push_back(&buffer(i, "exp_avg"));
    exp_avg_sqs.push_back(&buffer(i, "exp_avg_sq"));
  }
  std::vector<Var> params = parameters();  // Var handles share their values
  for (size_t i : active) {
    values.push_back(&params[i].mutable_value());
    grads.push_back(&params[i].grad());
  }
  const AdamParams hyper{current_hyper_parameters(), step_count()};
  ops::adam_scheduled_update(values, grads, exp_avgs, exp_avg_sqs, hyper, schedule);
}

namespace {
AdamOptions decoupled(AdamOptions options) {
  options.decoupled_weight_decay = true;
  return options;
}
}  // namespace

AdamW::AdamW(std::vector<Var> parameters, AdamOptions options)
    : Adam(std::move(parameters), decoupled(options)) {}

}  // namespace strand
