// CUDA kernels of the losses: binary cross-entropy from logits (contracts: kernels/cuda/loss.h).
#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/loss.h"
#include "kernels/unary_math.h"

namespace strand::kernels::cuda {
namespace {

template <typename T>
__global__ void bce_forward_kernel(int64_t n, const T* x, const T* y, T* out) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    const T v = x[i];
    out[i] = (v > T(0) ? v : T(0)) - v * y[i] + log1p(exp(-fabs(v)));
  }
}

template <typename T>
__global__ void bce_backward_kernel(int64_t n, const T* g, const T* x, const T* y, T* grad) {
  STRAND_GRID_STRIDE_LOOP(i, n) { grad[i] = g[i] * (sigmoid_of(x[i]) - y[i]); }
}

}  // namespace

void bce_with_logits_forward(DType dtype, int64_t n, const void* logits, const void* targets,
                             void* out, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_float(dtype, "bce_with_logits", [&](auto tag) {
    using T = decltype(tag);
    bce_forward_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        n, static_cast<const T*>(logits), static_cast<const T*>(targets), static_cast<T*>(out));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void bce_with_logits_backward(DType dtype, int64_t n, const void* grad_out, const void* logits,
                              const void* targets, void* grad, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_float(dtype, "bce_with_logits_backward", [&](auto tag) {
    using T = decltype(tag);
    bce_backward_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        n, static_cast<const T*>(grad_out), static_cast<const T*>(logits),
        static_cast<const T*>(targets), static_cast<T*>(grad));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
