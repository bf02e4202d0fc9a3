// Launchers of the memory kernels (kernels/cuda/memory.cu), the CUDA side of the primitive
// ops fill and copy (tensor/primitive_ops.h, adapted in tensor/cuda/memory_adapters.cpp).
// Launchers take raw device pointers, sizes in elements and
// the stream to run on, and check their launch (STRAND_CUDA_CHECK_LAUNCH).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/cuda/index_space.h"

namespace strand::kernels::cuda {

void fill(DType dtype, void* out, const IndexSpace& space, const StrideSet& out_strides,
          double value, cudaStream_t stream);
/// out[i] = static_cast<Out>(in[i]) between any two dtypes, any strides (both on the device).
void copy_convert(DType out_dtype, void* out, const StrideSet& out_strides, DType in_dtype,
                  const void* in, const StrideSet& in_strides, const IndexSpace& space,
                  cudaStream_t stream);

}  // namespace strand::kernels::cuda
