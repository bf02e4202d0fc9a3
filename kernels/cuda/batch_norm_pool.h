// Launchers of the fused BatchNorm -> ReLU -> MaxPool1D CUDA kernels
// (kernels/cuda/batch_norm_pool.cu). x (B, C, L) contiguous; weight, bias, mean, invstd (C);
// the pooled output and its argmax (B, C, L_out), argmax the position within L of each window's
// first maximum (as max_pool1d's). The (B, C, L) activation between the normalisation and the
// pooling is never written: the forward normalises each window's values as it pools them (the
// statistics come first: batch_norm_training_statistics or batch_norm_inference_statistics of
// kernels/cuda/normalization.h), and the backward routes each pooled gradient to its argmax
// inside batch normalisation's backward pass. Per-channel sums: two passes in a fixed order, no
// atomics.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/normalization_geometry.h"
#include "kernels/pooling_geometry.h"

namespace strand::kernels::cuda {

/// The float64 elements of workspace the backward pass needs.
int64_t batch_norm_relu_max_pool_workspace(const BatchNormGeometry& g, const Pool1DGeometry& pool);

/// out, argmax = max_pool(relu((x - mean) * weight * invstd + bias)).
void batch_norm_relu_max_pool_forward(DType dtype, const BatchNormGeometry& g,
                                      const Pool1DGeometry& pool, const void* x, const void* weight,
                                      const void* bias, const void* mean, const void* invstd,
                                      void* out, int64_t* argmax, cudaStream_t stream);

/// grad_x (B, C, L), grad_weight, grad_bias (C), overwritten, from grad_out and the forward's
/// x, out, argmax, mean and invstd; `training`: the statistics were the batch's (their
/// gradient flows into grad_x), else the running ones.
void batch_norm_relu_max_pool_backward(DType dtype, const BatchNormGeometry& g,
                                       const Pool1DGeometry& pool, const void* grad_out,
                                       const void* x, const void* out, const int64_t* argmax,
                                       const void* weight, const void* mean, const void* invstd,
                                       bool training, void* grad_x, void* grad_weight,
                                       void* grad_bias, double* workspace, cudaStream_t stream);

}  // namespace strand::kernels::cuda
