// The CUDA backend module's own entry to the fused Adam update (tests and benchmarks that link
// libstrand_cuda.so call it; training reaches it through AdamScheduledUpdateOp).
#pragma once

#include <vector>

#include "ops/optimizer_updates.h"

namespace strand::cuda {

/// Adam over many float32 CUDA parameters in as few launches as possible (up to
/// kernels::cuda::kMultiTensorMax per launch), with p.hyper and p.step from the host.
void adam_update_multi(std::vector<Tensor*> params, const std::vector<const Tensor*>& grads,
                       std::vector<Tensor*> exp_avgs, std::vector<Tensor*> exp_avg_sqs,
                       const AdamParams& p);

}  // namespace strand::cuda
