// CUDA kernels of 1-D max and average pooling (contracts: kernels/cuda/pooling.h).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/pooling.h"
#include "kernels/pooling_math.h"

namespace strand::kernels::cuda {
namespace {

// One thread per output (row, t).
template <typename T>
__global__ void max_pool1d_forward_kernel(Pool1DGeometry g, const T* x, T* out, int64_t* argmax) {
  STRAND_GRID_STRIDE_LOOP(i, g.rows * g.out_length) {
    const int64_t r = i / g.out_length, t = i % g.out_length;
    const T* row = x + r * g.length;
    const int64_t best = window_argmax(g, row, t);
    out[i] = row[best];
    argmax[i] = best;
  }
}

// One thread per input position (row, p): the sum over the windows that read p and chose it.
template <typename T>
__global__ void max_pool1d_backward_kernel(Pool1DGeometry g, const T* grad_out,
                                           const int64_t* argmax, T* grad_x) {
  STRAND_GRID_STRIDE_LOOP(i, g.rows * g.length) {
    const int64_t r = i / g.length, p = i % g.length;
    T total = T(0);
    for (int64_t t = g.first_output_reading(p); t <= g.last_output_reading(p); ++t) {
      if (argmax[r * g.out_length + t] == p) total += grad_out[r * g.out_length + t];
    }
    grad_x[i] = total;
  }
}

template <typename T>
__global__ void avg_pool1d_forward_kernel(Pool1DGeometry g, const T* x, T* out) {
  STRAND_GRID_STRIDE_LOOP(i, g.rows * g.out_length) {
    const int64_t r = i / g.out_length, t = i % g.out_length;
    out[i] = window_mean(g, x + r * g.length, t);
  }
}

template <typename T>
__global__ void avg_pool1d_backward_kernel(Pool1DGeometry g, const T* grad_out, T* grad_x) {
  STRAND_GRID_STRIDE_LOOP(i, g.rows * g.length) {
    const int64_t r = i / g.length, p = i % g.length;
    T total = T(0);
    for (int64_t t = g.first_output_reading(p); t <= g.last_output_reading(p); ++t) {
      total += grad_out[r * g.out_length + t] / static_cast<T>(g.window_end(t) - g.window_start(t));
    }
    grad_x[i] = total;
  }
}

}  // namespace

void max_pool1d_forward(DType dtype, const Pool1DGeometry& g, const void* x, void* out,
                        int64_t* argmax, cudaStream_t stream) {
  const int64_t n = g.rows * g.out_length;
  if (n == 0) return;
  dispatch_float(dtype, "max_pool1d", [&](auto tag) {
    using T = decltype(tag);
    max_pool1d_forward_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, static_cast<const T*>(x), static_cast<T*>(out), argmax);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void max_pool1d_backward(DType dtype, const Pool1DGeometry& g, const void* grad_out,
                         const int64_t* argmax, void* grad_x, cudaStream_t stream) {
  const int64_t n = g.rows * g.length;
  if (n == 0) return;
  dispatch_float(dtype, "max_pool1d_backward", [&](auto tag) {
    using T = decltype(tag);
    max_pool1d_backward_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, static_cast<const T*>(grad_out), argmax, static_cast<T*>(grad_x));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void avg_pool1d_forward(DType dtype, const Pool1DGeometry& g, const void* x, void* out,
                        cudaStream_t stream) {
  const int64_t n = g.rows * g.out_length;
  if (n == 0) return;
  dispatch_float(dtype, "avg_pool1d", [&](auto tag) {
    using T = decltype(tag);
    avg_pool1d_forward_kernel<T>
        <<<blocks_for(n), kThreads, 0, stream>>>(g, static_cast<const T*>(x), static_cast<T*>(out));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void avg_pool1d_backward(DType dtype, const Pool1DGeometry& g, const void* grad_out, void* grad_x,
                         cudaStream_t stream) {
  const int64_t n = g.rows * g.length;
  if (n == 0) return;
  dispatch_float(dtype, "avg_pool1d_backward", [&](auto tag) {
    using T = decltype(tag);
    avg_pool1d_backward_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, static_cast<const T*>(grad_out), static_cast<T*>(grad_x));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
