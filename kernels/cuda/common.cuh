// Device-side helpers shared by the .cu files: launch geometry, strided offsets, dtype
// dispatch on the host. .cu files include no fmt-based strand header (nvcc rejects fmt's
// constexpr code): errors go through the throw_* functions of check.h.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/index_space.h"
#include "kernels/cuda/merge_dims.h"

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

// ---- Strided index math ----------------------------------------------------------------
// A strided kernel turns a linear index into one offset per operand: a divide and a modulo per
// dimension. The loops below are unrolled over kMaxRank, so every stride they read
// (strides.stride[d]) has a constant index after unrolling: the IndexSpace and StrideSet
// kernel parameters stay in the constant bank. (A pointer to them, or a runtime index into
// their arrays, makes the compiler copy them to local memory in every thread.) `Index` is
// uint32_t where the space has fewer than 2^32 elements, so the divides are 32-bit, and
// merge_dims() (merge_dims.h) first folds away every dimension it can.

/// The offset of linear index `linear` of `space` in an operand with strides `s`.
template <typename Index>
__device__ __forceinline__ int64_t offset_of(Index linear, const IndexSpace& space,
                                             const StrideSet& s) {
  int64_t offset = 0;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (d < space.rank) {
      const Index extent = static_cast<Index>(space.extent[d]);
      offset += static_cast<int64_t>(linear % extent) * s.stride[d];
      linear /= extent;
    }
  }
  return offset;
}

/// offset_of for two operands at once (one divide per dimension for both).
template <typename Index>
__device__ __forceinline__ void offsets_of(Index linear, const IndexSpace& space,
                                           const StrideSet& s0, const StrideSet& s1, int64_t& o0,
                                           int64_t& o1) {
  o0 = 0;
  o1 = 0;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (d < space.rank) {
      const Index extent = static_cast<Index>(space.extent[d]);
      const int64_t digit = static_cast<int64_t>(linear % extent);
      o0 += digit * s0.stride[d];
      o1 += digit * s1.stride[d];
      linear /= extent;
    }
  }
}

/// offset_of for three operands at once.
template <typename Index>
__device__ __forceinline__ void offsets_of(Index linear, const IndexSpace& space,
                                           const StrideSet& s0, const StrideSet& s1,
                                           const StrideSet& s2, int64_t& o0, int64_t& o1,
                                           int64_t& o2) {
  o0 = 0;
  o1 = 0;
  o2 = 0;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (d < space.rank) {
      const Index extent = static_cast<Index>(space.extent[d]);
      const int64_t digit = static_cast<int64_t>(linear % extent);
      o0 += digit * s0.stride[d];
      o1 += digit * s1.stride[d];
      o2 += digit * s2.stride[d];
      linear /= extent;
    }
  }
}

/// Calls f(std::integral_constant<bool, contiguous>, Index{}) with the instantiation a
/// strided kernel over n elements needs: the contiguous one (plain indexing), or the strided
/// one with 32-bit index math below 2^32 elements and 64-bit beyond.
template <typename F>
void dispatch_layout(bool contiguous, int64_t n, F&& f) {
  if (contiguous) return f(std::true_type{}, int64_t{});
  if (n <= static_cast<int64_t>(UINT32_MAX)) return f(std::false_type{}, uint32_t{});
  return f(std::false_type{}, int64_t{});
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

/// Warp-wide sum (all 32 lanes active) in a fixed tree; the result is valid in lane 0.
template <typename A>
__device__ __forceinline__ A warp_sum(A value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;
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
