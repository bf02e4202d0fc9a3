// Launchers of the batch normalisation CUDA kernels (kernels/cuda/normalization.cu). Contracts as
// in kernels/cpu/normalization.h: contiguous x (B, C, L) (L = 1 for (B, C)), per-channel (C)
// vectors. Per-channel reductions run in two passes (blocks over chunks of each channel, then
// the chunks' partials combined in order) with no atomics, so results are deterministic; the
// training statistics read x once (Chan et al.'s combination of per-thread moments). The
// training forward and the backward pass take a float64 device workspace of
// batch_norm_workspace(g) elements.
#pragma once

#include <cuda_runtime_api.h>

#include "core/dtype.h"
#include "kernels/normalization_geometry.h"

namespace strand::kernels::cuda {

/// The float64 elements of workspace the training forward and the backward pass need.
int64_t batch_norm_workspace(const BatchNormGeometry& g);
/// The batch's statistics of x: mean and invstd (C) written, running_mean and running_var
/// updated in place (the unbiased variance), in one read of x.
void batch_norm_training_statistics(DType dtype, const BatchNormGeometry& g, const void* x,
                                    double momentum, double eps, void* running_mean,
                                    void* running_var, void* mean, void* invstd, double* workspace,
                                    cudaStream_t stream);
/// mean = running_mean, invstd = 1 / sqrt(running_var + eps), per channel.
void batch_norm_inference_statistics(DType dtype, int64_t channels, const void* running_mean,
                                     const void* running_var, double eps, void* mean, void* invstd,
                                     cudaStream_t stream);
void batch_norm_forward_training(DType dtype, const BatchNormGeometry& g, const void* x,
                                 const void* weight, const void* bias, double momentum, double eps,
                                 bool relu, void* running_mean, void* running_var, void* out,
                                 void* mean, void* invstd, double* workspace, cudaStream_t stream);
void batch_norm_forward_inference(DType dtype, const BatchNormGeometry& g, const void* x,
                                  const void* weight, const void* bias, const void* running_mean,
                                  const void* running_var, double eps, bool relu, void* out,
                                  void* mean, void* invstd, cudaStream_t stream);
void batch_norm_backward(DType dtype, const BatchNormGeometry& g, const void* grad_out,
                         const void* x, const void* out, const void* weight, const void* mean,
                         const void* invstd, bool training, bool relu, void* grad_x,
                         void* grad_weight, void* grad_bias, double* workspace,
                         cudaStream_t stream);

}  // namespace strand::kernels::cuda
