// Multi-tensor Adam on the device: parameters are packed kMultiTensorMax at a time into one
// launch's argument block.
#include "tensor/cuda/multi_tensor.h"

#include <functional>

#include "tensor/cuda/adapter_util.h"
#include "tensor/cuda/device.h"

namespace strand::cuda {
namespace {

namespace k = kernels::cuda;

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

void adam_scheduled_update_cuda(const std::vector<Tensor*>& params,
                                const std::vector<const Tensor*>& grads,
                                const std::vector<Tensor*>& exp_avgs,
                                const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& p,
                                Tensor& schedule) {
  adam_update_multi_scheduled(params, grads, exp_avgs, exp_avg_sqs, p, schedule);
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

void adam_update_multi_scheduled(const std::vector<Tensor*>& params,
                                 const std::vector<const Tensor*>& grads,
                                 const std::vector<Tensor*>& exp_avgs,
                                 const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& p,
                                 Tensor& schedule) {
  if (params.empty()) return;
  const Device device = params[0]->device();
  STRAND_CHECK(schedule.device() == device && schedule.dtype() == DType::kFloat64 &&
                   schedule.numel() == 2 && schedule.is_contiguous(),
               "adam_update_multi_scheduled: schedule must be a contiguous float64 [lr, step] on "
               "{}, got {}",
               device.to_string(), schedule.describe());
  require_device(device);
  // Advance once before every block so that all of them see the same step.
  k::adam_schedule_advance(schedule.data<double>(), stream(device));
  for_each_block(params, grads, exp_avgs, exp_avg_sqs, [&](const k::MultiTensorAdamArgs& args) {
    k::adam_update_multi_scheduled(args, schedule.data<double>(), p.hyper, stream(device));
  });
}

void register_cuda_multi_tensor_kernels() {
  OpKernels<AdamScheduledUpdateOp>::register_kernel(DeviceType::kCUDA, adam_scheduled_update_cuda);
}

}  // namespace strand::cuda
