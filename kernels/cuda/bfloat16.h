// Launchers of the bfloat16 cast kernels (kernels/cuda/bfloat16.cu): the operands of cuBLAS's and
// cuDNN's bfloat16 matrix math under --precision bf16 (tensor/precision.h), rounded exactly as
// the CPU rounds them (kernels/bfloat16.h: to nearest even, NaN kept), and their results widened
// back to float32. Contiguous arrays of n elements on the device; bfloat16 as its 16 bits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace strand::kernels::cuda {

/// out[i] = bfloat16 bits of in[i], to nearest even.
void float_to_bfloat16(const float* in, uint16_t* out, int64_t n, cudaStream_t stream);
/// out[i] = in[i] as float32 (exact).
void bfloat16_to_float(const uint16_t* in, float* out, int64_t n, cudaStream_t stream);

}  // namespace strand::kernels::cuda
