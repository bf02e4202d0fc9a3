// Launchers of the 1-D pooling CUDA kernels (kernels/cuda/pooling.cu). Contracts as in
// kernels/cpu/pooling.h: contiguous (rows, L) inputs, (rows, L_out) outputs, the first argmax of
// each window. The backward passes gather (one thread per input position sums the outputs
// whose windows read it), so they need no atomics and are deterministic.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/pooling_geometry.h"

namespace strand::kernels::cuda {

void max_pool1d_forward(DType dtype, const Pool1DGeometry& g, const void* x, void* out,
                        int64_t* argmax, cudaStream_t stream);
void max_pool1d_backward(DType dtype, const Pool1DGeometry& g, const void* grad_out,
                         const int64_t* argmax, void* grad_x, cudaStream_t stream);
void avg_pool1d_forward(DType dtype, const Pool1DGeometry& g, const void* x, void* out,
                        cudaStream_t stream);
void avg_pool1d_backward(DType dtype, const Pool1DGeometry& g, const void* grad_out, void* grad_x,
                         cudaStream_t stream);

}  // namespace strand::kernels::cuda
