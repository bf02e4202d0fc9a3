// CUDA kernels of the fused batch normalisation (contracts: kernels/cuda/normalization.h).
//
// Per-channel reductions run in two passes with a fixed order: a channel's B rows are cut into
// chunks of about kChunk values (chunk_plan); one block per (channel, chunk) reduces its values
// in float64 (threads interleaved over the chunk, then a fixed warp-shuffle tree) into a
// partial, and a second kernel combines each channel's partials in order. With one block per
// channel, a wide layer's channel (Basset's first: 128 x 582 values) was one block's serial
// work. No atomics: results are bit-identical from run to run.
//
// The training statistics take one read of x (they took two: the mean, then the squared
// deviations from it). Each thread sums its values' offsets from a shift (the chunk's first
// value) and their squares; its (count, mean, M2) follow exactly from those, and the threads'
// and chunks' triples combine with Chan et al.'s update, as the CPU kernel combines its rows'
// (kernels/cpu/normalization.cpp): sound for data far from zero, where a plain sum of squares
// minus the squared sum would cancel. Elementwise passes: one thread per element, with 32-bit
// index math where the tensor allows it.
#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/normalization.h"

namespace strand::kernels::cuda {
namespace {

inline constexpr int64_t kChunk = 8192;  // values per block of a per-channel sum, about

// Each channel's B rows in chunks of `rows` rows (at least one), `splits` chunks per channel.
struct ChunkPlan {
  int64_t rows = 1;
  int64_t splits = 1;
};
ChunkPlan chunk_plan(const BatchNormGeometry& g) {
  ChunkPlan plan;
  const int64_t length = g.length > 0 ? g.length : 1;
  plan.rows = std::max<int64_t>(1, std::min<int64_t>(kChunk / length, g.batch));
  plan.splits = std::max<int64_t>(1, (g.batch + plan.rows - 1) / plan.rows);
  return plan;
}

// 32-bit index math when every element index fits (with room for a block's stride past it).
bool small_tensor(const BatchNormGeometry& g) {
  return g.batch * g.channels * g.length < int64_t{1} << 31;
}

// The (count, mean, M2) of a set of values, M2 the sum of their squared deviations from the
// mean; float64.
struct Moments {
  double count;
  double mean;
  double m2;
};

// Chan et al.'s combination of two sets' moments (either may be empty).
__device__ __forceinline__ Moments combine_moments(const Moments& a, const Moments& b) {
  if (b.count == 0.0) return a;
  if (a.count == 0.0) return b;
  const double count = a.count + b.count;
  const double delta = b.mean - a.mean;
  const double weight = b.count / count;
  return {count, a.mean + delta * weight, a.m2 + b.m2 + delta * delta * a.count * weight};
}

__device__ __forceinline__ Moments shuffle_down(const Moments& m, int offset) {
  return {__shfl_down_sync(0xffffffffu, m.count, offset),
          __shfl_down_sync(0xffffffffu, m.mean, offset),
          __shfl_down_sync(0xffffffffu, m.m2, offset)};
}

// The block's moments (blockDim.x a multiple of 32, at most 1024), combined in a fixed tree as
// block_sum adds; valid in thread 0.
__device__ __forceinline__ Moments block_moments(Moments m) {
  __shared__ double count[32], mean[32], m2[32];
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) m = combine_moments(m, shuffle_down(m, offset));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // the arrays may still be read by a previous call
  if (lane == 0) {
    count[warp] = m.count;
    mean[warp] = m.mean;
    m2[warp] = m.m2;
  }
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  m = threadIdx.x < warps ? Moments{count[threadIdx.x], mean[threadIdx.x], m2[threadIdx.x]}
                          : Moments{0.0, 0.0, 0.0};
  if (warp == 0) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      m = combine_moments(m, shuffle_down(m, offset));
    }
  }
  return m;
}

// The moments of chunk b % splits of channel b / splits at partials[3 b .. 3 b + 2], in one
// read: each thread sums its values' offsets d = v - shift from the chunk's first value and
// d^2 (mean = shift + sum d / n, M2 = sum d^2 - (sum d)^2 / n: with the shift inside the data
// the sums stay of the spread's size, not the mean's).
template <typename T, typename Index>
__global__ void channel_moments_kernel(BatchNormGeometry g, const T* x, int64_t rows,
                                       int64_t splits, double* partials) {
  const int64_t blocks = g.channels * splits;
  const Index length = static_cast<Index>(g.length);
  for (int64_t block = blockIdx.x; block < blocks; block += gridDim.x) {  // uniform per block
    const int64_t c = block / splits;
    const int64_t first_row = (block % splits) * rows;
    const int64_t end_row = first_row + rows < g.batch ? first_row + rows : g.batch;
    const Index n = static_cast<Index>((end_row - first_row) * g.length);
    const double shift = static_cast<double>(x[(first_row * g.channels + c) * g.length]);
    double sum = 0.0, squares = 0.0;
    Index count = 0;
    for (Index i = threadIdx.x; i < n; i += blockDim.x) {
      const int64_t b = first_row + static_cast<int64_t>(i / length);
      const double d =
          static_cast<double>(x[(b * g.channels + c) * g.length + (i % length)]) - shift;
      sum += d;
      squares += d * d;
      ++count;
    }
    Moments m{0.0, 0.0, 0.0};
    if (count > 0) {
      const double k = static_cast<double>(count);
      m = {k, shift + sum / k, fmax(0.0, squares - sum * sum / k)};
    }
    m = block_moments(m);
    if (threadIdx.x == 0) {
      partials[3 * block] = m.count;
      partials[3 * block + 1] = m.mean;
      partials[3 * block + 2] = m.m2;
    }
  }
}

// Each channel's chunks combined in order: the biased variance M2 / N; mean and invstd saved,
// the running statistics updated (unbiased variance, N / (N - 1)).
template <typename T>
__global__ void channel_statistics_kernel(int64_t channels, int64_t splits, const double* partials,
                                          double momentum, double eps, T* running_mean,
                                          T* running_var, T* mean, T* invstd) {
  STRAND_GRID_STRIDE_LOOP(c, channels) {
    Moments m{0.0, 0.0, 0.0};
    for (int64_t k = 0; k < splits; ++k) {
      const double* p = partials + 3 * (c * splits + k);
      m = combine_moments(m, Moments{p[0], p[1], p[2]});
    }
    const double count = m.count;
    const double var = m.m2 / count;
    mean[c] = static_cast<T>(m.mean);
    invstd[c] = static_cast<T>(1.0 / sqrt(var + eps));
    running_mean[c] =
        static_cast<T>((1.0 - momentum) * static_cast<double>(running_mean[c]) + momentum * m.mean);
    running_var[c] = static_cast<T>((1.0 - momentum) * static_cast<double>(running_var[c]) +
                                    momentum * var * count / (count - 1.0));
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

// The channel of element i of (B, C, L).
template <typename Index>
__device__ __forceinline__ Index channel_of(int64_t i, Index channels, Index length) {
  return (static_cast<Index>(i) / length) % channels;
}

template <typename T, typename Index>
__global__ void batch_norm_normalize_kernel(BatchNormGeometry g, const T* x, const T* weight,
                                            const T* bias, const T* mean, const T* invstd,
                                            bool relu, T* out) {
  const Index channels = static_cast<Index>(g.channels), length = static_cast<Index>(g.length);
  STRAND_GRID_STRIDE_LOOP(i, g.batch * g.channels * g.length) {
    const Index c = channel_of(i, channels, length);
    const T y = (x[i] - mean[c]) * (weight[c] * invstd[c]) + bias[c];
    out[i] = relu ? (y > T(0) ? y : T(0)) : y;
  }
}

template <typename T>
__device__ __forceinline__ T masked_gradient(const T* grad_out, const T* out, bool relu,
                                             int64_t i) {
  return relu && !(out[i] > T(0)) ? T(0) : grad_out[i];
}

// Partials of the gradient sums per (channel, chunk): sum dy' at partials[block], sum
// dy' * (x - mean) at partials[channels * splits + block].
template <typename T, typename Index>
__global__ void gradient_partials_kernel(BatchNormGeometry g, const T* grad_out, const T* x,
                                         const T* out, const T* mean, bool relu, int64_t rows,
                                         int64_t splits, double* partials) {
  const int64_t blocks = g.channels * splits;
  const Index length = static_cast<Index>(g.length);
  for (int64_t block = blockIdx.x; block < blocks; block += gridDim.x) {  // uniform per block
    const int64_t c = block / splits;
    const int64_t first_row = (block % splits) * rows;
    const int64_t end_row = first_row + rows < g.batch ? first_row + rows : g.batch;
    const Index n = static_cast<Index>((end_row - first_row) * g.length);
    const T m = mean[c];
    double dy_total = 0.0, centered_total = 0.0;
    for (Index i = threadIdx.x; i < n; i += blockDim.x) {
      const int64_t b = first_row + static_cast<int64_t>(i / length);
      const int64_t index = (b * g.channels + c) * g.length + (i % length);
      const T dy = masked_gradient(grad_out, out, relu, index);
      dy_total += static_cast<double>(dy);
      centered_total += static_cast<double>(dy * (x[index] - m));
    }
    dy_total = block_sum(dy_total);
    centered_total = block_sum(centered_total);
    if (threadIdx.x == 0) {
      partials[block] = dy_total;
      partials[blocks + block] = centered_total;
    }
  }
}

// grad_bias = sum dy', grad_weight = sum dy' * xhat, from the partials in order.
template <typename T>
__global__ void gradient_sums_kernel(int64_t channels, int64_t splits, const double* partials,
                                     const T* invstd, T* grad_weight, T* grad_bias) {
  STRAND_GRID_STRIDE_LOOP(c, channels) {
    double dy_total = 0.0, centered_total = 0.0;
    for (int64_t k = 0; k < splits; ++k) {
      dy_total += partials[c * splits + k];
      centered_total += partials[channels * splits + c * splits + k];
    }
    grad_bias[c] = static_cast<T>(dy_total);
    grad_weight[c] = static_cast<T>(centered_total * static_cast<double>(invstd[c]));
  }
}

template <typename T, typename Index>
__global__ void batch_norm_input_gradient_kernel(BatchNormGeometry g, const T* grad_out, const T* x,
                                                 const T* out, const T* weight, const T* mean,
                                                 const T* invstd, const T* grad_weight,
                                                 const T* grad_bias, bool training, bool relu,
                                                 T* grad_x) {
  const double n = static_cast<double>(g.count());
  const Index channels = static_cast<Index>(g.channels), length = static_cast<Index>(g.length);
  STRAND_GRID_STRIDE_LOOP(i, g.batch * g.channels * g.length) {
    const Index c = channel_of(i, channels, length);
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

unsigned block_grid(int64_t blocks) {
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 65535L * 16));
}

// Calls f(Index{}) with the index type of g's elements.
template <typename F>
void dispatch_index(const BatchNormGeometry& g, F&& f) {
  if (small_tensor(g)) return f(uint32_t{});
  return f(int64_t{});
}

template <typename T>
void launch_normalize(const BatchNormGeometry& g, const void* x, const void* weight,
                      const void* bias, const void* mean, const void* invstd, bool relu, void* out,
                      cudaStream_t stream) {
  const int64_t n = g.batch * g.channels * g.length;
  if (n == 0) return;
  dispatch_index(g, [&](auto index) {
    batch_norm_normalize_kernel<T, decltype(index)><<<blocks_for(n), kThreads, 0, stream>>>(
        g, static_cast<const T*>(x), static_cast<const T*>(weight), static_cast<const T*>(bias),
        static_cast<const T*>(mean), static_cast<const T*>(invstd), relu, static_cast<T*>(out));
  });
}

}  // namespace

int64_t batch_norm_workspace(const BatchNormGeometry& g) {
  // Statistics: (count, mean, M2) per chunk; backward: two sums per chunk.
  return 3 * g.channels * chunk_plan(g).splits;
}

void batch_norm_training_statistics(DType dtype, const BatchNormGeometry& g, const void* x,
                                    double momentum, double eps, void* running_mean,
                                    void* running_var, void* mean, void* invstd, double* workspace,
                                    cudaStream_t stream) {
  if (g.channels == 0) return;
  const ChunkPlan plan = chunk_plan(g);
  dispatch_float(dtype, "batch_norm_forward", [&](auto tag) {
    using T = decltype(tag);
    dispatch_index(g, [&](auto index) {
      channel_moments_kernel<T, decltype(index)>
          <<<block_grid(g.channels * plan.splits), kThreads, 0, stream>>>(
              g, static_cast<const T*>(x), plan.rows, plan.splits, workspace);
    });
    STRAND_CUDA_CHECK_LAUNCH();
    channel_statistics_kernel<T><<<blocks_for(g.channels), kThreads, 0, stream>>>(
        g.channels, plan.splits, workspace, momentum, eps, static_cast<T*>(running_mean),
        static_cast<T*>(running_var), static_cast<T*>(mean), static_cast<T*>(invstd));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void batch_norm_inference_statistics(DType dtype, int64_t channels, const void* running_mean,
                                     const void* running_var, double eps, void* mean, void* invstd,
                                     cudaStream_t stream) {
  if (channels == 0) return;
  dispatch_float(dtype, "batch_norm_forward", [&](auto tag) {
    using T = decltype(tag);
    batch_norm_running_kernel<T><<<blocks_for(channels), kThreads, 0, stream>>>(
        channels, static_cast<const T*>(running_mean), static_cast<const T*>(running_var), eps,
        static_cast<T*>(mean), static_cast<T*>(invstd));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void batch_norm_forward_training(DType dtype, const BatchNormGeometry& g, const void* x,
                                 const void* weight, const void* bias, double momentum, double eps,
                                 bool relu, void* running_mean, void* running_var, void* out,
                                 void* mean, void* invstd, double* workspace, cudaStream_t stream) {
  if (g.channels == 0) return;
  batch_norm_training_statistics(dtype, g, x, momentum, eps, running_mean, running_var, mean,
                                 invstd, workspace, stream);
  dispatch_float(dtype, "batch_norm_forward", [&](auto tag) {
    launch_normalize<decltype(tag)>(g, x, weight, bias, mean, invstd, relu, out, stream);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void batch_norm_forward_inference(DType dtype, const BatchNormGeometry& g, const void* x,
                                  const void* weight, const void* bias, const void* running_mean,
                                  const void* running_var, double eps, bool relu, void* out,
                                  void* mean, void* invstd, cudaStream_t stream) {
  if (g.channels == 0) return;
  batch_norm_inference_statistics(dtype, g.channels, running_mean, running_var, eps, mean, invstd,
                                  stream);
  dispatch_float(dtype, "batch_norm_forward", [&](auto tag) {
    launch_normalize<decltype(tag)>(g, x, weight, bias, mean, invstd, relu, out, stream);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void batch_norm_backward(DType dtype, const BatchNormGeometry& g, const void* grad_out,
                         const void* x, const void* out, const void* weight, const void* mean,
                         const void* invstd, bool training, bool relu, void* grad_x,
                         void* grad_weight, void* grad_bias, double* workspace,
                         cudaStream_t stream) {
  if (g.channels == 0) return;
  const ChunkPlan plan = chunk_plan(g);
  dispatch_float(dtype, "batch_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    dispatch_index(g, [&](auto index) {
      using Index = decltype(index);
      gradient_partials_kernel<T, Index>
          <<<block_grid(g.channels * plan.splits), kThreads, 0, stream>>>(
              g, static_cast<const T*>(grad_out), static_cast<const T*>(x),
              static_cast<const T*>(out), static_cast<const T*>(mean), relu, plan.rows, plan.splits,
              workspace);
      STRAND_CUDA_CHECK_LAUNCH();
      gradient_sums_kernel<T><<<blocks_for(g.channels), kThreads, 0, stream>>>(
          g.channels, plan.splits, workspace, static_cast<const T*>(invstd),
          static_cast<T*>(grad_weight), static_cast<T*>(grad_bias));
      STRAND_CUDA_CHECK_LAUNCH();
      const int64_t n = g.batch * g.channels * g.length;
      if (n == 0) return;
      batch_norm_input_gradient_kernel<T, Index><<<blocks_for(n), kThreads, 0, stream>>>(
          g, static_cast<const T*>(grad_out), static_cast<const T*>(x), static_cast<const T*>(out),
          static_cast<const T*>(weight), static_cast<const T*>(mean), static_cast<const T*>(invstd),
          static_cast<const T*>(grad_weight), static_cast<const T*>(grad_bias), training, relu,
          static_cast<T*>(grad_x));
    });
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
