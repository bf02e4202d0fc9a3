// CPU kernels for the SGD, Adam and RMSprop parameter updates.
#include "core/dtype_dispatch.h"
#include "kernels/cpu/optimizer_updates.h"
#include "tensor/cpu/cpu_kernel_registration.h"
#include "tensor/op_declarations.h"

#include <vector>

namespace strand {
namespace {

template <typename T>
T* optional_data(Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

void adam_update_cpu(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                     const AdamParams& p) {
  dispatch_floating(param.dtype(), "adam_update", [&]<typename T>() {
    kernels::cpu::adam_update<T>(param.numel(), param.data<T>(), grad.data<T>(), exp_avg.data<T>(),
                                 exp_avg_sq.data<T>(), p.hyper, p.step);
  });
}

void adam_scheduled_update_cpu(const std::vector<Tensor*>& params,
                               const std::vector<const Tensor*>& grads,
                               const std::vector<Tensor*>& exp_avgs,
                               const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& p,
                               Tensor& schedule) {
  double* lr_and_step = schedule.data<double>();  // [lr, step]
  lr_and_step[1] += 1.0;
  AdamParams now = p;
  now.hyper.learning_rate = lr_and_step[0];
  now.step = static_cast<int64_t>(lr_and_step[1]);
  for (size_t i = 0; i < params.size(); ++i) {
    adam_update_cpu(*params[i], *grads[i], *exp_avgs[i], *exp_avg_sqs[i], now);
  }
}

void sgd_update_cpu(Tensor& param, const Tensor& grad, Tensor& momentum_buffer,
                    const SGDParams& p) {
  dispatch_floating(param.dtype(), "sgd_update", [&]<typename T>() {
    kernels::cpu::sgd_update<T>(param.numel(), param.data<T>(), grad.data<T>(),
                                optional_data<T>(momentum_buffer), p.lr, p.momentum, p.dampening,
                                p.weight_decay, p.nesterov, p.first_step);
  });
}

void rmsprop_update_cpu(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                        Tensor& momentum_buffer, const RMSpropParams& p) {
  dispatch_floating(param.dtype(), "rmsprop_update", [&]<typename T>() {
    kernels::cpu::rmsprop_update<T>(param.numel(), param.data<T>(), grad.data<T>(),
                                    square_avg.data<T>(), optional_data<T>(grad_avg),
                                    optional_data<T>(momentum_buffer), p.lr, p.alpha, p.eps,
                                    p.weight_decay, p.momentum, p.centered);
  });
}

}  // namespace

void register_cpu_optimizer_kernels() {
  OpKernels<AdamUpdateOp>::register_kernel(DeviceType::kCPU, adam_update_cpu);
  OpKernels<AdamScheduledUpdateOp>::register_kernel(DeviceType::kCPU, adam_scheduled_update_cpu);
  OpKernels<SGDUpdateOp>::register_kernel(DeviceType::kCPU, sgd_update_cpu);
  OpKernels<RMSpropUpdateOp>::register_kernel(DeviceType::kCPU, rmsprop_update_cpu);
}

}  // namespace strand
