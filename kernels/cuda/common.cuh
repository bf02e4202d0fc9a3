// Device-side helpers shared by the .cu files: launch geometry, strided offsets, dtype
// dispatch on the host. .cu files include no fmt-based strand header (nvcc rejects fmt's
// constexpr code): errors go through the throw_* functions of check.h.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cuda/check.h"
#include "kernels/cuda/kernels.h"

namespace strand::kernels::cuda {

inline constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over n elements (capped; the loop covers the rest).
inline unsigned blocks_for(int64_t n, int threads = kThreads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 65535L * 16));
}

#define STRAND_GRID_STRIDE_LOOP(i, n)                                                    \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

/// Offsets of linear index `linear` of `space` in N operands.
template <int N>
__device__ __forceinline__ void strided_offsets(int64_t linear, const IndexSpace& space,
                                                const StrideSet* const (&strides)[N],
                                                int64_t (&offsets)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) offsets[i] = 0;
  for (int d = space.rank - 1; d >= 0; --d) {
    const int64_t extent = space.extent[d];
    const int64_t index = linear % extent;
    linear /= extent;
#pragma unroll
    for (int i = 0; i < N; ++i) offsets[i] += index * strides[i]->stride[d];
  }
}

/// True when `strides` are the row-major contiguous strides of `space`.
inline bool is_contiguous(const IndexSpace& space, const StrideSet& strides) {
  int64_t expected = 1;
  for (int d = space.rank - 1; d >= 0; --d) {
    if (space.extent[d] != 1 && strides.stride[d] != expected) return false;
    expected *= space.extent[d];
  }
  return true;
}

/// Calls f(T{}) with T the C++ type of a floating dtype.
template <typename F>
void dispatch_float(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    default:
      ::strand::cuda::throw_dtype_error(op, static_cast<int>(dtype));
  }
}

template <typename F>
void dispatch_all(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    case DType::kUInt8:
      return f(uint8_t{});
    case DType::kInt32:
      return f(int32_t{});
    case DType::kInt64:
      return f(int64_t{});
  }
  ::strand::cuda::throw_dtype_error("dtype dispatch", static_cast<int>(dtype));
}

/// Block-wide sum (blockDim.x a multiple of 32, at most 1024); the result is valid in thread 0.
template <typename A>
__device__ __forceinline__ A block_sum(A value) {
  __shared__ A partial[32];
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // `partial` may still be read by a previous call
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  value = threadIdx.x < warps ? partial[threadIdx.x] : A(0);
  if (warp == 0) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
      value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;
}

}  // namespace strand::kernels::cuda
