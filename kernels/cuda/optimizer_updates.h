// Launchers of the fused optimizer update CUDA kernels (kernels/cuda/optimizer_updates.cu):
// contiguous, in place, in double arithmetic as on the CPU (kernels/optimizer_math.h).
// Launchers take raw device pointers, sizes in elements and
// the stream to run on, and check their launch (STRAND_CUDA_CHECK_LAUNCH).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/optimizer_math.h"

namespace strand::kernels::cuda {

// schedule: null, or the device float64 [lr, step] of the step (already advanced): the kernel
// then reads the learning rate (and Adam the step) there instead of taking the host values,
// so a captured CUDA graph replays with the current values, not frozen kernel arguments.
void adam_update(DType dtype, int64_t n, void* param, const void* grad, void* exp_avg,
                 void* exp_avg_sq, const AdamHyperParameters& hyper, int64_t step,
                 const double* schedule, cudaStream_t stream);
void sgd_update(DType dtype, int64_t n, void* param, const void* grad, void* buffer, double lr,
                double momentum, double dampening, double weight_decay, bool nesterov,
                bool first_step, const double* schedule, cudaStream_t stream);
void rmsprop_update(DType dtype, int64_t n, void* param, const void* grad, void* square_avg,
                    void* grad_avg, void* buffer, double lr, double alpha, double eps,
                    double weight_decay, double momentum, bool centered, const double* schedule,
                    cudaStream_t stream);
/// schedule[1] += 1 (device float64 [lr, step]).
void advance_schedule(double* schedule, cudaStream_t stream);

/// Multi-tensor Adam: one launch updates up to kMultiTensorMax float32 tensors.
inline constexpr int kMultiTensorMax = 48;
struct MultiTensorAdamArgs {
  int count = 0;
  float* param[kMultiTensorMax];
  const float* grad[kMultiTensorMax];
  float* exp_avg[kMultiTensorMax];
  float* exp_avg_sq[kMultiTensorMax];
  int64_t numel[kMultiTensorMax];
};
void adam_update_multi(const MultiTensorAdamArgs& args, const AdamHyperParameters& hyper,
                       int64_t step, cudaStream_t stream);
/// As adam_update_multi, with the learning rate and step read from the device schedule
/// (hyper.learning_rate is not used).
void adam_update_multi_scheduled(const MultiTensorAdamArgs& args, const double* schedule,
                                 const AdamHyperParameters& hyper, cudaStream_t stream);

}  // namespace strand::kernels::cuda
