// Multi-tensor Adam on the device.
#include "kernels/cuda/multi_tensor.h"

#include "kernels/cuda/cuda_adapter_util.h"
#include "kernels/cuda/cuda_device.h"

namespace strand::cuda {

void adam_update_multi(std::vector<Tensor*> params, const std::vector<const Tensor*>& grads,
                       std::vector<Tensor*> exp_avgs, std::vector<Tensor*> exp_avg_sqs,
                       const AdamParams& p) {
  const size_t n = params.size();
  STRAND_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n,
               "adam_update_multi: {} params but {} grads, {} exp_avg, {} exp_avg_sq", n,
               grads.size(), exp_avgs.size(), exp_avg_sqs.size());
  if (n == 0) return;
  const Device device = params[0]->device();
  require_device(device);
  kernels::cuda::MultiTensorAdamArgs args;
  const auto flush = [&] {
    kernels::cuda::adam_update_multi(args, p.lr, p.beta1, p.beta2, p.eps, p.weight_decay, p.step,
                                     stream(device));
    args.count = 0;
  };
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
    if (args.count == kernels::cuda::kMultiTensorMax) flush();
  }
  if (args.count > 0) flush();
}

}  // namespace strand::cuda
