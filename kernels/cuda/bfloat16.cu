// CUDA kernels of the bfloat16 casts (contracts: kernels/cuda/bfloat16.h), on the rounding the
// CPU uses (kernels/bfloat16.h).
#include "kernels/bfloat16.h"
#include "kernels/cuda/bfloat16.h"
#include "kernels/cuda/common.cuh"

namespace strand::kernels::cuda {
namespace {

__global__ void float_to_bfloat16_kernel(const float* in, uint16_t* out, int64_t n) {
  STRAND_GRID_STRIDE_LOOP(i, n) { out[i] = bfloat16_from_float(in[i]); }
}

__global__ void bfloat16_to_float_kernel(const uint16_t* in, float* out, int64_t n) {
  STRAND_GRID_STRIDE_LOOP(i, n) { out[i] = float_from_bfloat16(in[i]); }
}

}  // namespace

void float_to_bfloat16(const float* in, uint16_t* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  float_to_bfloat16_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n);
  STRAND_CUDA_CHECK_LAUNCH();
}

void bfloat16_to_float(const uint16_t* in, float* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  bfloat16_to_float_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n);
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
