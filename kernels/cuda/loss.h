// Launchers of the loss CUDA kernels (kernels/cuda/loss.cu): binary cross-entropy from logits,
// element-wise over n contiguous values (contracts: kernels/cpu/loss.h). Launchers take raw device
// pointers, sizes in elements and the stream to run on, and check their launch
// (STRAND_CUDA_CHECK_LAUNCH).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"

namespace strand::kernels::cuda {

void bce_with_logits_forward(DType dtype, int64_t n, const void* logits, const void* targets,
                             void* out, cudaStream_t stream);
void bce_with_logits_backward(DType dtype, int64_t n, const void* grad_out, const void* logits,
                              const void* targets, void* grad, cudaStream_t stream);

}  // namespace strand::kernels::cuda
