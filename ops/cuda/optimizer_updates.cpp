// The fused optimizer updates: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks and CPU adapters are in ops/optimizer_updates.cpp.
#include "ops/cuda/optimizer_updates.h"

#include <functional>

#include "kernels/cuda/optimizer_updates.h"
#include "tensor/cuda/adapter_util.h"

namespace strand {

// ---- CUDA adapters: Tensors to kernels/cuda/optimizer_updates.cu -------------------------------
namespace cuda {
namespace {

namespace k = kernels::cuda;

// The schedule's device address, or null (the kernels then take the host values).
const double* schedule_of(const Tensor& schedule) {
  return schedule.defined() ? schedule.data<double>() : nullptr;
}

void advance_schedule_cuda(Tensor& schedule) {
  k::advance_schedule(schedule.data<double>(), stream_of(schedule));
}

void adam_cuda(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
               const AdamParams& p, const Tensor& schedule) {
  k::adam_update(param.dtype(), param.numel(), param.raw_data(), grad.raw_data(),
                 exp_avg.raw_data(), exp_avg_sq.raw_data(), p.hyper, p.step, schedule_of(schedule),
                 stream_of(param));
}

void sgd_cuda(Tensor& param, const Tensor& grad, Tensor& momentum_buffer, const SGDParams& p,
              const Tensor& schedule) {
  k::sgd_update(param.dtype(), param.numel(), param.raw_data(), grad.raw_data(),
                optional_mut(momentum_buffer), p.lr, p.momentum, p.dampening, p.weight_decay,
                p.nesterov, p.first_step, schedule_of(schedule), stream_of(param));
}

void rmsprop_cuda(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                  Tensor& momentum_buffer, const RMSpropParams& p, const Tensor& schedule) {
  k::rmsprop_update(param.dtype(), param.numel(), param.raw_data(), grad.raw_data(),
                    square_avg.raw_data(), optional_mut(grad_avg), optional_mut(momentum_buffer),
                    p.lr, p.alpha, p.eps, p.weight_decay, p.momentum, p.centered,
                    schedule_of(schedule), stream_of(param));
}

// Checks the four lists and calls `launch` once per packed block of up to kMultiTensorMax
// parameters. Returns the device they live on.
Device for_each_block(const std::vector<Tensor*>& params, const std::vector<const Tensor*>& grads,
                      const std::vector<Tensor*>& exp_avgs, const std::vector<Tensor*>& exp_avg_sqs,
                      const std::function<void(const k::MultiTensorAdamArgs&)>& launch) {
  const size_t n = params.size();
  STRAND_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n,
               "adam_update_multi: {} params but {} grads, {} exp_avg, {} exp_avg_sq", n,
               grads.size(), exp_avgs.size(), exp_avg_sqs.size());
  STRAND_CHECK(n > 0, "adam_update_multi: no parameters");
  const Device device = params[0]->device();
  require_device(device);
  k::MultiTensorAdamArgs args;
  for (size_t i = 0; i < n; ++i) {
    for (const Tensor* t :
         {static_cast<const Tensor*>(params[i]), grads[i], static_cast<const Tensor*>(exp_avgs[i]),
          static_cast<const Tensor*>(exp_avg_sqs[i])}) {
      STRAND_CHECK(t->device() == device && t->dtype() == DType::kFloat32 && t->is_contiguous() &&
                       t->numel() == params[i]->numel(),
                   "adam_update_multi: tensor {} of parameter {} must be contiguous float32 on {} "
                   "with {} elements",
                   t->describe(), i, device.to_string(), params[i]->numel());
    }
    const int slot = args.count++;
    args.param[slot] = params[i]->data<float>();
    args.grad[slot] = grads[i]->data<float>();
    args.exp_avg[slot] = exp_avgs[i]->data<float>();
    args.exp_avg_sq[slot] = exp_avg_sqs[i]->data<float>();
    args.numel[slot] = params[i]->numel();
    if (args.count == k::kMultiTensorMax) {
      launch(args);
      args.count = 0;
    }
  }
  if (args.count > 0) launch(args);
  return device;
}

}  // namespace

void adam_update_multi(std::vector<Tensor*> params, const std::vector<const Tensor*>& grads,
                       std::vector<Tensor*> exp_avgs, std::vector<Tensor*> exp_avg_sqs,
                       const AdamParams& p) {
  if (params.empty()) return;
  const Device device = params[0]->device();
  for_each_block(params, grads, exp_avgs, exp_avg_sqs, [&](const k::MultiTensorAdamArgs& args) {
    k::adam_update_multi(args, p.hyper, p.step, stream(device));
  });
}

// The CUDA kernel of AdamScheduledUpdateOp: updates every parameter with the learning rate
// and bias correction read from the schedule (advanced for this step) on the device.
namespace {
void adam_update_multi_scheduled(const std::vector<Tensor*>& params,
                                 const std::vector<const Tensor*>& grads,
                                 const std::vector<Tensor*>& exp_avgs,
                                 const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& p,
                                 const Tensor& schedule) {
  if (params.empty()) return;
  const Device device = params[0]->device();
  STRAND_CHECK(schedule.device() == device && schedule.dtype() == DType::kFloat64 &&
                   schedule.numel() == 2 && schedule.is_contiguous(),
               "adam_update_multi_scheduled: schedule must be a contiguous float64 [lr, step] on "
               "{}, got {}",
               device.to_string(), schedule.describe());
  require_device(device);
  for_each_block(params, grads, exp_avgs, exp_avg_sqs, [&](const k::MultiTensorAdamArgs& args) {
    k::adam_update_multi_scheduled(args, schedule.data<double>(), p.hyper, stream(device));
  });
}
}  // namespace

}  // namespace cuda

STRAND_REGISTER_KERNELS(optimizer_updates_cuda) {
  constexpr DeviceType kCuda = DeviceType::kCUDA;
  OpKernels<AdvanceScheduleOp>::register_kernel(kCuda, cuda::advance_schedule_cuda);
  OpKernels<AdamUpdateOp>::register_kernel(kCuda, cuda::adam_cuda);
  OpKernels<AdamScheduledUpdateOp>::register_kernel(kCuda, cuda::adam_update_multi_scheduled);
  OpKernels<SGDUpdateOp>::register_kernel(kCuda, cuda::sgd_cuda);
  OpKernels<RMSpropUpdateOp>::register_kernel(kCuda, cuda::rmsprop_cuda);
}

}  // namespace strand
