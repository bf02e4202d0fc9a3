// The fused optimizer updates: argument checks and dispatch, and the CPU adapters with
// their registration (the CUDA ones: ops/cuda/optimizer_updates.cpp).
#include "ops/optimizer_updates.h"

#include "core/dtype_dispatch.h"
#include "kernels/cpu/optimizer_updates.h"
#include "tensor/argument_checks.h"

namespace strand {

// ---- On tensors: checks and dispatch --------------------------------------------------------
namespace ops {
namespace {
// A state buffer of `param`: defined when `needed`, and then of its shape, dtype and device.
void check_state(const char* op, const Tensor& param, const Tensor& state, const char* name,
                 bool needed) {
  if (!needed) return;
  STRAND_CHECK(state.defined(), "{}: the {} buffer is undefined", op, name);
  STRAND_CHECK(state.shape() == param.shape() && state.dtype() == param.dtype() &&
                   state.device() == param.device() && state.is_contiguous(),
               "{}: the {} buffer {} does not match the parameter {}", op, name, state.describe(),
               param.describe());
}

// `schedule`: undefined, or a contiguous float64 [lr, step] on `device`.
void check_schedule(const char* op, const Tensor& schedule, Device device) {
  if (!schedule.defined()) return;
  STRAND_CHECK(schedule.device() == device && schedule.dtype() == DType::kFloat64 &&
                   schedule.numel() == 2 && schedule.is_contiguous(),
               "{}: the schedule must be a contiguous float64 [lr, step] on {}, got {}", op,
               device.to_string(), schedule.describe());
}

void check_param_and_grad(const char* op, const Tensor& param, const Tensor& grad) {
  check_floating(op, param);
  STRAND_CHECK(param.is_contiguous(), "{}: the parameter {} is not contiguous", op,
               param.describe());
  check_defined(op, grad);
  check_same_shape(op, param, grad);
  check_same_dtype(op, param, grad);
  check_same_device(op, param, grad);
}
}  // namespace

void advance_schedule(Tensor& schedule) {
  STRAND_CHECK(schedule.defined(), "advance_schedule: the schedule is undefined");
  check_schedule("advance_schedule", schedule, schedule.device());
  dispatch<AdvanceScheduleOp>(schedule.device(), schedule);
}

void adam_update(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                 const AdamParams& params, const Tensor& schedule) {
  check_param_and_grad("adam_update", param, grad);
  check_state("adam_update", param, exp_avg, "exp_avg", true);
  check_state("adam_update", param, exp_avg_sq, "exp_avg_sq", true);
  check_schedule("adam_update", schedule, param.device());
  dispatch<AdamUpdateOp>(param.device(), param, grad.contiguous(), exp_avg, exp_avg_sq, params,
                         schedule);
}

void adam_scheduled_update(const std::vector<Tensor*>& params,
                           const std::vector<const Tensor*>& grads,
                           const std::vector<Tensor*>& exp_avgs,
                           const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& hyper,
                           const Tensor& schedule) {
  const size_t n = params.size();
  STRAND_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n,
               "adam_scheduled_update: {} params but {} grads, {} exp_avg, {} exp_avg_sq", n,
               grads.size(), exp_avgs.size(), exp_avg_sqs.size());
  STRAND_CHECK(n > 0, "adam_scheduled_update: no parameters");
  const Device device = params[0]->device();
  STRAND_CHECK(schedule.defined(), "adam_scheduled_update: the schedule is undefined");
  check_schedule("adam_scheduled_update", schedule, device);
  for (size_t i = 0; i < n; ++i) {
    check_param_and_grad("adam_scheduled_update", *params[i], *grads[i]);
    STRAND_CHECK(params[i]->device() == device && grads[i]->is_contiguous(),
                 "adam_scheduled_update: parameter {} ({}) must be on {} with a contiguous "
                 "gradient",
                 i, params[i]->describe(), device.to_string());
    check_state("adam_scheduled_update", *params[i], *exp_avgs[i], "exp_avg", true);
    check_state("adam_scheduled_update", *params[i], *exp_avg_sqs[i], "exp_avg_sq", true);
  }
  dispatch<AdamScheduledUpdateOp>(device, params, grads, exp_avgs, exp_avg_sqs, hyper, schedule);
}

void sgd_update(Tensor& param, const Tensor& grad, Tensor& momentum_buffer, const SGDParams& params,
                const Tensor& schedule) {
  check_param_and_grad("sgd_update", param, grad);
  check_state("sgd_update", param, momentum_buffer, "momentum", params.momentum != 0.0);
  check_schedule("sgd_update", schedule, param.device());
  dispatch<SGDUpdateOp>(param.device(), param, grad.contiguous(), momentum_buffer, params,
                        schedule);
}

void rmsprop_update(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                    Tensor& momentum_buffer, const RMSpropParams& params, const Tensor& schedule) {
  check_param_and_grad("rmsprop_update", param, grad);
  check_state("rmsprop_update", param, square_avg, "square_avg", true);
  check_state("rmsprop_update", param, grad_avg, "grad_avg", params.centered);
  check_state("rmsprop_update", param, momentum_buffer, "momentum", params.momentum > 0);
  check_schedule("rmsprop_update", schedule, param.device());
  dispatch<RMSpropUpdateOp>(param.device(), param, grad.contiguous(), square_avg, grad_avg,
                            momentum_buffer, params, schedule);
}

}  // namespace ops

// ---- CPU adapters: Tensors to kernels/cpu/optimizer_updates.h -------------------------------
namespace {

template <typename T>
T* optional_data(Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

void advance_schedule_cpu(Tensor& schedule) { schedule.data<double>()[1] += 1.0; }

// The learning rate in force: the schedule's when there is one (host memory on the CPU).
double scheduled_rate(const Tensor& schedule, double rate) {
  return schedule.defined() ? schedule.data<double>()[0] : rate;
}

void adam_update_cpu(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                     const AdamParams& p, const Tensor& schedule) {
  AdamParams now = p;
  if (schedule.defined()) {
    now.hyper.learning_rate = schedule.data<double>()[0];
    now.step = static_cast<int64_t>(schedule.data<double>()[1]);
  }
  dispatch_floating(param.dtype(), "adam_update", [&]<typename T>() {
    kernels::cpu::adam_update<T>(param.numel(), param.data<T>(), grad.data<T>(), exp_avg.data<T>(),
                                 exp_avg_sq.data<T>(), now.hyper, now.step);
  });
}

void adam_scheduled_update_cpu(const std::vector<Tensor*>& params,
                               const std::vector<const Tensor*>& grads,
                               const std::vector<Tensor*>& exp_avgs,
                               const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& p,
                               const Tensor& schedule) {
  for (size_t i = 0; i < params.size(); ++i) {
    adam_update_cpu(*params[i], *grads[i], *exp_avgs[i], *exp_avg_sqs[i], p, schedule);
  }
}

void sgd_update_cpu(Tensor& param, const Tensor& grad, Tensor& momentum_buffer, const SGDParams& p,
                    const Tensor& schedule) {
  const double lr = scheduled_rate(schedule, p.lr);
  dispatch_floating(param.dtype(), "sgd_update", [&]<typename T>() {
    kernels::cpu::sgd_update<T>(param.numel(), param.data<T>(), grad.data<T>(),
                                optional_data<T>(momentum_buffer), lr, p.momentum, p.dampening,
                                p.weight_decay, p.nesterov, p.first_step);
  });
}

void rmsprop_update_cpu(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                        Tensor& momentum_buffer, const RMSpropParams& p, const Tensor& schedule) {
  const double lr = scheduled_rate(schedule, p.lr);
  dispatch_floating(param.dtype(), "rmsprop_update", [&]<typename T>() {
    kernels::cpu::rmsprop_update<T>(param.numel(), param.data<T>(), grad.data<T>(),
                                    square_avg.data<T>(), optional_data<T>(grad_avg),
                                    optional_data<T>(momentum_buffer), lr, p.alpha, p.eps,
                                    p.weight_decay, p.momentum, p.centered);
  });
}

}  // namespace

STRAND_REGISTER_KERNELS(optimizer_updates_cpu) {
  OpKernels<AdvanceScheduleOp>::register_kernel(DeviceType::kCPU, advance_schedule_cpu);
  OpKernels<AdamUpdateOp>::register_kernel(DeviceType::kCPU, adam_update_cpu);
  OpKernels<AdamScheduledUpdateOp>::register_kernel(DeviceType::kCPU, adam_scheduled_update_cpu);
  OpKernels<SGDUpdateOp>::register_kernel(DeviceType::kCPU, sgd_update_cpu);
  OpKernels<RMSpropUpdateOp>::register_kernel(DeviceType::kCPU, rmsprop_update_cpu);
}

}  // namespace strand
