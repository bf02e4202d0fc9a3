// CUDA kernels of the fused BatchNorm -> ReLU -> MaxPool1D (contracts:
// kernels/cuda/batch_norm_pool.h).
//
// Forward: one thread per pooled output normalises its window's values, applies the ReLU and
// keeps the first maximum (window_argmax's rule of kernels/pooling_math.h, on the activated
// values). Backward: the gradient sums over the pooled outputs (only a window's argmax carries
// gradient, and only where its output is positive), per (channel, chunk of rows) in float64 and
// then each channel's chunks in order; then one thread per input position adds the gradients of
// the windows that chose it and applies batch normalisation's input gradient, the formula of
// kernels/cuda/normalization.cu.
#include <cmath>

#include "kernels/cuda/batch_norm_pool.h"
#include "kernels/cuda/common.cuh"

namespace strand::kernels::cuda {
namespace {

inline constexpr int64_t kChunk = 8192;  // pooled values per block of a per-channel sum, about

// Each channel's B rows of pooled values in chunks of `rows` rows, `splits` chunks per channel.
struct ChunkPlan {
  int64_t rows = 1;
  int64_t splits = 1;
};
ChunkPlan chunk_plan(const BatchNormGeometry& g, const Pool1DGeometry& pool) {
  ChunkPlan plan;
  const int64_t length = pool.out_length > 0 ? pool.out_length : 1;
  plan.rows = std::max<int64_t>(1, std::min<int64_t>(kChunk / length, g.batch));
  plan.splits = std::max<int64_t>(1, (g.batch + plan.rows - 1) / plan.rows);
  return plan;
}

unsigned block_grid(int64_t blocks) {
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 65535L * 16));
}

// relu((v - mean) * scale + shift), as the normalisation kernel computes it.
template <typename T>
__device__ __forceinline__ T activated(T v, T mean, T scale, T shift) {
  const T y = (v - mean) * scale + shift;
  return y > T(0) ? y : T(0);
}

template <typename T>
__global__ void normalize_relu_max_pool_kernel(BatchNormGeometry g, Pool1DGeometry pool, const T* x,
                                               const T* weight, const T* bias, const T* mean,
                                               const T* invstd, T* out, int64_t* argmax) {
  STRAND_GRID_STRIDE_LOOP(i, pool.rows * pool.out_length) {
    const int64_t r = i / pool.out_length, t = i % pool.out_length;
    const int64_t c = r % g.channels;
    const T m = mean[c], scale = weight[c] * invstd[c], shift = bias[c];
    const T* row = x + r * pool.length;
    int64_t best = pool.window_start(t);
    T best_value = activated(row[best], m, scale, shift);
    for (int64_t p = best + 1; p < pool.window_end(t) && best_value == best_value; ++p) {
      const T value = activated(row[p], m, scale, shift);
      if (value > best_value || value != value) {
        best = p;
        best_value = value;
      }
    }
    out[i] = best_value;
    argmax[i] = best;
  }
}

// Partials per (channel, chunk): the sum of dy' at partials[block] and of dy' * (x - mean) at
// partials[channels * splits + block], dy' a pooled output's gradient where that output is
// positive (the ReLU's mask) and x the input at its argmax.
template <typename T>
__global__ void pooled_gradient_partials_kernel(BatchNormGeometry g, Pool1DGeometry pool,
                                                const T* grad_out, const T* x, const T* out,
                                                const int64_t* argmax, const T* mean, int64_t rows,
                                                int64_t splits, double* partials) {
  const int64_t blocks = g.channels * splits;
  const int64_t pooled = pool.out_length;
  for (int64_t block = blockIdx.x; block < blocks; block += gridDim.x) {  // uniform per block
    const int64_t c = block / splits;
    const int64_t first_row = (block % splits) * rows;
    const int64_t end_row = first_row + rows < g.batch ? first_row + rows : g.batch;
    const int64_t n = (end_row - first_row) * pooled;
    const T m = mean[c];
    double dy_total = 0.0, centered_total = 0.0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const int64_t row = (first_row + i / pooled) * g.channels + c;
      const int64_t o = row * pooled + i % pooled;
      const T dy = out[o] > T(0) ? grad_out[o] : T(0);
      dy_total += static_cast<double>(dy);
      centered_total += static_cast<double>(dy * (x[row * g.length + argmax[o]] - m));
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

// One thread per input (row, p): dy' = the gradients of the windows whose argmax is p and whose
// output is positive, then batch normalisation's input gradient.
template <typename T>
__global__ void pooled_input_gradient_kernel(BatchNormGeometry g, Pool1DGeometry pool,
                                             const T* grad_out, const T* x, const T* out,
                                             const int64_t* argmax, const T* weight, const T* mean,
                                             const T* invstd, const T* grad_weight,
                                             const T* grad_bias, bool training, T* grad_x) {
  const double n = static_cast<double>(g.count());
  STRAND_GRID_STRIDE_LOOP(i, pool.rows * pool.length) {
    const int64_t r = i / pool.length, p = i % pool.length;
    const int64_t c = r % g.channels;
    T dy = T(0);
    for (int64_t t = pool.first_output_reading(p); t <= pool.last_output_reading(p); ++t) {
      const int64_t o = r * pool.out_length + t;
      if (argmax[o] == p && out[o] > T(0)) dy += grad_out[o];
    }
    const double inv = static_cast<double>(invstd[c]);
    const T scale = static_cast<T>(static_cast<double>(weight[c]) * inv);
    if (training) {
      const T shift = static_cast<T>(static_cast<double>(grad_bias[c]) / n);
      const T slope = static_cast<T>(inv * static_cast<double>(grad_weight[c]) / n);
      grad_x[i] = scale * (dy - shift - (x[i] - mean[c]) * slope);
    } else {
      grad_x[i] = scale * dy;
    }
  }
}

}  // namespace

int64_t batch_norm_relu_max_pool_workspace(const BatchNormGeometry& g, const Pool1DGeometry& pool) {
  return 2 * g.channels * chunk_plan(g, pool).splits;
}

void batch_norm_relu_max_pool_forward(DType dtype, const BatchNormGeometry& g,
                                      const Pool1DGeometry& pool, const void* x, const void* weight,
                                      const void* bias, const void* mean, const void* invstd,
                                      void* out, int64_t* argmax, cudaStream_t stream) {
  const int64_t n = pool.rows * pool.out_length;
  if (n == 0) return;
  dispatch_float(dtype, "batch_norm_relu_max_pool", [&](auto tag) {
    using T = decltype(tag);
    normalize_relu_max_pool_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, pool, static_cast<const T*>(x), static_cast<const T*>(weight),
        static_cast<const T*>(bias), static_cast<const T*>(mean), static_cast<const T*>(invstd),
        static_cast<T*>(out), argmax);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void batch_norm_relu_max_pool_backward(DType dtype, const BatchNormGeometry& g,
                                       const Pool1DGeometry& pool, const void* grad_out,
                                       const void* x, const void* out, const int64_t* argmax,
                                       const void* weight, const void* mean, const void* invstd,
                                       bool training, void* grad_x, void* grad_weight,
                                       void* grad_bias, double* workspace, cudaStream_t stream) {
  if (g.channels == 0) return;
  const ChunkPlan plan = chunk_plan(g, pool);
  dispatch_float(dtype, "batch_norm_relu_max_pool_backward", [&](auto tag) {
    using T = decltype(tag);
    pooled_gradient_partials_kernel<T>
        <<<block_grid(g.channels * plan.splits), kThreads, 0, stream>>>(
            g, pool, static_cast<const T*>(grad_out), static_cast<const T*>(x),
            static_cast<const T*>(out), argmax, static_cast<const T*>(mean), plan.rows, plan.splits,
            workspace);
    STRAND_CUDA_CHECK_LAUNCH();
    gradient_sums_kernel<T><<<blocks_for(g.channels), kThreads, 0, stream>>>(
        g.channels, plan.splits, workspace, static_cast<const T*>(invstd),
        static_cast<T*>(grad_weight), static_cast<T*>(grad_bias));
    STRAND_CUDA_CHECK_LAUNCH();
    const int64_t n = pool.rows * pool.length;
    if (n == 0) return;
    pooled_input_gradient_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, pool, static_cast<const T*>(grad_out), static_cast<const T*>(x),
        static_cast<const T*>(out), argmax, static_cast<const T*>(weight),
        static_cast<const T*>(mean), static_cast<const T*>(invstd),
        static_cast<const T*>(grad_weight), static_cast<const T*>(grad_bias), training,
        static_cast<T*>(grad_x));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
