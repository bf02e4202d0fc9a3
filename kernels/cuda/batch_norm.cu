// CUDA kernels of the fused batch normalisation (contracts: kernels/cuda/batch_norm.h).
// Statistics and gradient sums: one block per channel, each thread summing a fixed strided
// share of the channel's B * L values in double, then block_sum's fixed tree. Elementwise
// passes: one thread per element.
#include <cmath>

#include "kernels/cuda/batch_norm.h"
#include "kernels/cuda/common.cuh"

namespace strand::kernels::cuda {
namespace {

// Index of the i-th value (of B * L) of channel c.
__device__ __forceinline__ int64_t channel_value(const BatchNormGeometry& g, int64_t c, int64_t i) {
  const int64_t b = i / g.length, l = i % g.length;
  return (b * g.channels + c) * g.length + l;
}

// One block per channel: mean and biased variance (two passes), saved as mean and invstd, and
// the running statistics updated.
template <typename T>
__global__ void batch_norm_statistics_kernel(BatchNormGeometry g, const T* x, double momentum,
                                             double eps, T* running_mean, T* running_var, T* mean,
                                             T* invstd) {
  const int64_t c = blockIdx.x;
  const int64_t count = g.count();
  __shared__ double shared_mean;
  double total = 0.0;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    total += static_cast<double>(x[channel_value(g, c, i)]);
  }
  total = block_sum(total);
  if (threadIdx.x == 0) shared_mean = total / static_cast<double>(count);
  __syncthreads();
  const double m = shared_mean;
  double squares = 0.0;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    const double d = static_cast<double>(x[channel_value(g, c, i)]) - m;
    squares += d * d;
  }
  squares = block_sum(squares);
  if (threadIdx.x == 0) {
    const double n = static_cast<double>(count);
    const double var = squares / n;
    mean[c] = static_cast<T>(m);
    invstd[c] = static_cast<T>(1.0 / sqrt(var + eps));
    running_mean[c] =
        static_cast<T>((1.0 - momentum) * static_cast<double>(running_mean[c]) + momentum * m);
    running_var[c] = static_cast<T>((1.0 - momentum) * static_cast<double>(running_var[c]) +
                                    momentum * var * n / (n - 1.0));
  }
}

template <typename T>
__global__ void batch_norm_running_kernel(int64_t channels, const T* running_mean,
                                          const T* running_var, double eps, T* mean, T* invstd) {
  STRAND_GRID_STRIDE_LOOP(c, channels) {
    mean[c] = running_mean[c];
    invstd[c] = static_cast<T>(1.0 / sqrt(static_cast<double>(running_var[c]) + eps));
  }
}

template <typename T>
__global__ void batch_norm_normalize_kernel(BatchNormGeometry g, const T* x, const T* weight,
                                            const T* bias, const T* mean, const T* invstd,
                                            bool relu, T* out) {
  STRAND_GRID_STRIDE_LOOP(i, g.batch * g.channels * g.length) {
    const int64_t c = (i / g.length) % g.channels;
    const T y = (x[i] - mean[c]) * (weight[c] * invstd[c]) + bias[c];
    out[i] = relu ? (y > T(0) ? y : T(0)) : y;
  }
}

template <typename T>
__device__ __forceinline__ T masked_gradient(const T* grad_out, const T* out, bool relu,
                                             int64_t i) {
  return relu && !(out[i] > T(0)) ? T(0) : grad_out[i];
}

// One block per channel: grad_bias = sum dy', grad_weight = sum dy' * xhat.
template <typename T>
__global__ void batch_norm_gradient_sums_kernel(BatchNormGeometry g, const T* grad_out, const T* x,
                                                const T* out, const T* mean, const T* invstd,
                                                bool relu, T* grad_weight, T* grad_bias) {
  const int64_t c = blockIdx.x;
  const T m = mean[c];
  double dy_total = 0.0, centered_total = 0.0;
  for (int64_t i = threadIdx.x; i < g.count(); i += blockDim.x) {
    const int64_t index = channel_value(g, c, i);
    const T dy = masked_gradient(grad_out, out, relu, index);
    dy_total += static_cast<double>(dy);
    centered_total += static_cast<double>(dy * (x[index] - m));
  }
  dy_total = block_sum(dy_total);
  centered_total = block_sum(centered_total);
  if (threadIdx.x == 0) {
    grad_bias[c] = static_cast<T>(dy_total);
    grad_weight[c] = static_cast<T>(centered_total * static_cast<double>(invstd[c]));
  }
}

template <typename T>
__global__ void batch_norm_input_gradient_kernel(BatchNormGeometry g, const T* grad_out, const T* x,
                                                 const T* out, const T* weight, const T* mean,
                                                 const T* invstd, const T* grad_weight,
                                                 const T* grad_bias, bool training, bool relu,
                                                 T* grad_x) {
  const double n = static_cast<double>(g.count());
  STRAND_GRID_STRIDE_LOOP(i, g.batch * g.channels * g.length) {
    const int64_t c = (i / g.length) % g.channels;
    const double inv = static_cast<double>(invstd[c]);
    const T scale = static_cast<T>(static_cast<double>(weight[c]) * inv);
    const T dy = masked_gradient(grad_out, out, relu, i);
    if (training) {
      const T shift = static_cast<T>(static_cast<double>(grad_bias[c]) / n);
      const T slope = static_cast<T>(inv * static_cast<double>(grad_weight[c]) / n);
      grad_x[i] = scale * (dy - shift - (x[i] - mean[c]) * slope);
    } else {
      grad_x[i] = scale * dy;
    }
  }
}

template <typename T>
void launch_normalize(const BatchNormGeometry& g, const void* x, const void* weight,
                      const void* bias, const void* mean, const void* invstd, bool relu, void* out,
                      cudaStream_t stream) {
  const int64_t n = g.batch * g.channels * g.length;
  if (n == 0) return;
  batch_norm_normalize_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
      g, static_cast<const T*>(x), static_cast<const T*>(weight), static_cast<const T*>(bias),
      static_cast<const T*>(mean), static_cast<const T*>(invstd), relu, static_cast<T*>(out));
}

}  // namespace

void batch_norm_forward_training(DType dtype, const BatchNormGeometry& g, const void* x,
                                 const void* weight, const void* bias, double momentum, double eps,
                                 bool relu, void* running_mean, void* running_var, void* out,
                                 void* mean, void* invstd, cudaStream_t stream) {
  if (g.channels == 0) return;
  dispatch_float(dtype, "batch_norm_forward", [&](auto tag) {
    using T = decltype(tag);
    batch_norm_statistics_kernel<T><<<static_cast<unsigned>(g.channels), kThreads, 0, stream>>>(
        g, static_cast<const T*>(x), momentum, eps, static_cast<T*>(running_mean),
        static_cast<T*>(running_var), static_cast<T*>(mean), static_cast<T*>(invstd));
    STRAND_CUDA_CHECK_LAUNCH();
    launch_normalize<T>(g, x, weight, bias, mean, invstd, relu, out, stream);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void batch_norm_forward_inference(DType dtype, const BatchNormGeometry& g, const void* x,
                                  const void* weight, const void* bias, const void* running_mean,
                                  const void* running_var, double eps, bool relu, void* out,
                                  void* mean, void* invstd, cudaStream_t stream) {
  if (g.channels == 0) return;
  dispatch_float(dtype, "batch_norm_forward", [&](auto tag) {
    using T = decltype(tag);
    batch_norm_running_kernel<T><<<blocks_for(g.channels), kThreads, 0, stream>>>(
        g.channels, static_cast<const T*>(running_mean), static_cast<const T*>(running_var), eps,
        static_cast<T*>(mean), static_cast<T*>(invstd));
    STRAND_CUDA_CHECK_LAUNCH();
    launch_normalize<T>(g, x, weight, bias, mean, invstd, relu, out, stream);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void batch_norm_backward(DType dtype, const BatchNormGeometry& g, const void* grad_out,
                         const void* x, const void* out, const void* weight, const void* mean,
                         const void* invstd, bool training, bool relu, void* grad_x,
                         void* grad_weight, void* grad_bias, cudaStream_t stream) {
  if (g.channels == 0) return;
  dispatch_float(dtype, "batch_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    batch_norm_gradient_sums_kernel<T><<<static_cast<unsigned>(g.channels), kThreads, 0, stream>>>(
        g, static_cast<const T*>(grad_out), static_cast<const T*>(x), static_cast<const T*>(out),
        static_cast<const T*>(mean), static_cast<const T*>(invstd), relu,
        static_cast<T*>(grad_weight), static_cast<T*>(grad_bias));
    STRAND_CUDA_CHECK_LAUNCH();
    const int64_t n = g.batch * g.channels * g.length;
    if (n == 0) return;
    batch_norm_input_gradient_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, static_cast<const T*>(grad_out), static_cast<const T*>(x), static_cast<const T*>(out),
        static_cast<const T*>(weight), static_cast<const T*>(mean), static_cast<const T*>(invstd),
        static_cast<const T*>(grad_weight), static_cast<const T*>(grad_bias), training, relu,
        static_cast<T*>(grad_x));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
