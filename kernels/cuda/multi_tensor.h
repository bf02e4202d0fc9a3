// Multi-tensor optimizer updates: one kernel launch updates many parameters (up to 48 per
// launch), instead of optim/'s per-parameter dispatch. float32, contiguous, same device.
#pragma once

#include <vector>

#include "tensor/op_declarations.h"

namespace strand::cuda {

/// Applies AdamUpdateOp's rule to every (param[i], grad[i], exp_avg[i], exp_avg_sq[i]).
void adam_update_multi(std::vector<Tensor*> params, const std::vector<const Tensor*>& grads,
                       std::vector<Tensor*> exp_avgs, std::vector<Tensor*> exp_avg_sqs,
                       const AdamParams& p);

}  // namespace strand::cuda
