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

/// The CUDA kernel of AdamScheduledUpdateOp: adds 1 to schedule[1] (float64 [lr, step] on the
/// device), then updates every parameter with the learning rate and bias correction read
/// from the schedule on the device. Captured into a CUDA graph, every replay is the next
/// step; p.lr and p.step are ignored.
void adam_update_multi_scheduled(const std::vector<Tensor*>& params,
                                 const std::vector<const Tensor*>& grads,
                                 const std::vector<Tensor*>& exp_avgs,
                                 const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& p,
                                 Tensor& schedule);

/// Registers AdamScheduledUpdateOp's CUDA kernel (called by register_cuda_kernels).
void register_cuda_multi_tensor_kernels();

}  // namespace strand::cuda
