// Launchers of the reduction CUDA kernels (kernels/cuda/reduction.cu): sums, the sum of squares,
// max with its first argmax and max's backward scatter. Contracts as in kernels/cpu/reduction.h
// (a NaN wins the max, as on the CPU). Launchers take raw device pointers, sizes in elements and
// the stream to run on, and check their launch (STRAND_CUDA_CHECK_LAUNCH).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/cuda/index_space.h"

namespace strand::kernels::cuda {

/// out[o] (contiguous over the outer space) = sum over the inner space; float64 accumulation
/// in an order fixed by the shapes (bit-identical repeats). `workspace`: sum_workspace()
/// float64 elements of device memory (null when that is 0).
void sum(DType dtype, const void* x, const IndexSpace& outer, const StrideSet& outer_strides,
         const IndexSpace& inner, const StrideSet& inner_strides, void* out, double* workspace,
         cudaStream_t stream);
/// The float64 elements of workspace sum() needs for these spaces (0: none).
int64_t sum_workspace(const IndexSpace& outer, const StrideSet& outer_strides,
                      const IndexSpace& inner, const StrideSet& inner_strides);
/// *out (device float64) = sum of x[i]^2 over n contiguous float elements, accumulated in
/// float64 (no float64 copy of x); fixed order. `workspace`: sum_of_squares_workspace(n).
void sum_of_squares(DType dtype, int64_t n, const void* x, double* out, double* workspace,
                    cudaStream_t stream);
int64_t sum_of_squares_workspace(int64_t n);
/// For each line (outer space, row-major): values/indices = max and first argmax over `count`
/// elements `stride` apart; a NaN wins (as on the CPU).
void max(DType dtype, const void* x, const IndexSpace& outer, const StrideSet& outer_strides,
         int64_t count, int64_t stride, void* values, int64_t* indices, cudaStream_t stream);
/// grad_in[line offset + indices[line] * stride] += grad[line]; grad, indices contiguous.
void max_backward(DType dtype, const void* grad, const int64_t* indices, const IndexSpace& outer,
                  const StrideSet& grad_in_strides, int64_t stride, void* grad_in,
                  cudaStream_t stream);

}  // namespace strand::kernels::cuda
