// CUDA kernels for Conv1D (strand's own; cuDNN is the alternative, chosen per shape in
// ops/conv1d.cpp and tensor/cuda/conv_engine.cpp), the one-hot gather Conv1D and the fused
// Conv1D+ReLU+GlobalMaxPool.
// Geometry and contracts: kernels/conv1d_geometry.h, kernels/cpu/conv1d_onehot.h.
#include <cfloat>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/conv1d.h"

namespace strand::kernels::cuda {
namespace {

// ---- Dense Conv1D -------------------------------------------------------------------------

// One thread per output (b, o, t); consecutive threads share (b, o) so weight reads broadcast
// and input reads coalesce.
template <typename T>
__global__ void conv_forward_kernel(Conv1DGeometry g, const T* __restrict__ x,
                                    const T* __restrict__ w, const T* __restrict__ bias,
                                    T* __restrict__ out) {
  const int64_t n = g.batch * g.out_channels * g.out_length;
  STRAND_GRID_STRIDE_LOOP(i, n) {
    const int64_t t = i % g.out_length;
    const int64_t o = (i / g.out_length) % g.out_channels;
    const int64_t b = i / (g.out_length * g.out_channels);
    T acc = bias ? bias[o] : T(0);
    const T* xb = x + b * g.in_channels * g.length;
    const T* wo = w + o * g.in_channels * g.kernel_size;
    for (int64_t c = 0; c < g.in_channels; ++c) {
      for (int64_t k = 0; k < g.kernel_size; ++k) {
        const int64_t p = t * g.stride + k * g.dilation - g.pad_left;
        if (p >= 0 && p < g.length) acc += wo[c * g.kernel_size + k] * xb[c * g.length + p];
      }
    }
    out[i] = acc;
  }
}

// One thread per input element (b, c, l): gathers every (o, k) whose window covers l.
template <typename T>
__global__ void conv_backward_input_kernel(Conv1DGeometry g, const T* __restrict__ grad_out,
                                           const T* __restrict__ w, T* __restrict__ grad_x) {
  const int64_t n = g.batch * g.in_channels * g.length;
  STRAND_GRID_STRIDE_LOOP(i, n) {
    const int64_t l = i % g.length;
    const int64_t c = (i / g.length) % g.in_channels;
    const int64_t b = i / (g.length * g.in_channels);
    T acc = T(0);
    for (int64_t k = 0; k < g.kernel_size; ++k) {
      const int64_t num = l + g.pad_left - k * g.dilation;
      if (num < 0 || num % g.stride != 0) continue;
      const int64_t t = num / g.stride;
      if (t >= g.out_length) continue;
      for (int64_t o = 0; o < g.out_channels; ++o) {
        acc += grad_out[(b * g.out_channels + o) * g.out_length + t] *
               w[(o * g.in_channels + c) * g.kernel_size + k];
      }
    }
    grad_x[i] = acc;
  }
}

// One block per weight (o, c, k); threads split the (b, t) sum (double accumulation).
template <typename T>
__global__ void conv_backward_weight_kernel(Conv1DGeometry g, const T* __restrict__ grad_out,
                                            const T* __restrict__ x, T* __restrict__ grad_w) {
  const int64_t weights = g.out_channels * g.in_channels * g.kernel_size;
  const int64_t terms = g.batch * g.out_length;
  for (int64_t wi = blockIdx.x; wi < weights; wi += gridDim.x) {
    const int64_t k = wi % g.kernel_size;
    const int64_t c = (wi / g.kernel_size) % g.in_channels;
    const int64_t o = wi / (g.kernel_size * g.in_channels);
    double acc = 0.0;
    for (int64_t j = threadIdx.x; j < terms; j += blockDim.x) {
      const int64_t t = j % g.out_length;
      const int64_t b = j / g.out_length;
      const int64_t p = t * g.stride + k * g.dilation - g.pad_left;
      if (p >= 0 && p < g.length) {
        acc += static_cast<double>(grad_out[(b * g.out_channels + o) * g.out_length + t]) *
               static_cast<double>(x[(b * g.in_channels + c) * g.length + p]);
      }
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) grad_w[wi] = static_cast<T>(acc);
  }
}

template <typename T>
__global__ void add_bias_kernel(int64_t n, int64_t channels, int64_t length,
                                const T* __restrict__ bias, T* __restrict__ out) {
  STRAND_GRID_STRIDE_LOOP(i, n) { out[i] += bias[(i / length) % channels]; }
}

// ---- One-hot gather Conv1D ------------------------------------------------------------------

template <typename T>
__global__ void onehot_forward_kernel(Conv1DGeometry g, const uint8_t* __restrict__ codes,
                                      const T* __restrict__ w, const T* __restrict__ bias,
                                      T* __restrict__ out) {
  const int64_t n = g.batch * g.out_channels * g.out_length;
  STRAND_GRID_STRIDE_LOOP(i, n) {
    const int64_t t = i % g.out_length;
    const int64_t o = (i / g.out_length) % g.out_channels;
    const int64_t b = i / (g.out_length * g.out_channels);
    const uint8_t* row = codes + b * g.length;
    const T* wo = w + o * 4 * g.kernel_size;
    T acc = bias ? bias[o] : T(0);
    for (int64_t k = 0; k < g.kernel_size; ++k) {
      const int64_t p = t * g.stride + k * g.dilation - g.pad_left;
      if (p < 0 || p >= g.length) continue;
      const uint8_t base = row[p];
      if (base < kBaseN) acc += wo[base * g.kernel_size + k];
    }
    out[i] = acc;
  }
}

// One thread per position: four coalesced writes, one per base row.
template <typename T>
__global__ void one_hot_kernel(int64_t batch, int64_t length, const uint8_t* __restrict__ codes,
                               T* __restrict__ out) {
  STRAND_GRID_STRIDE_LOOP(i, batch * length) {
    const int64_t b = i / length, p = i - b * length;
    const uint8_t base = codes[i];
    T* column = out + b * 4 * length + p;
#pragma unroll
    for (int c = 0; c < 4; ++c) column[c * length] = base == c ? T(1) : T(0);
  }
}

// One block per (o, k); the four bases' sums are reduced together.
template <typename T>
__global__ void onehot_backward_weight_kernel(Conv1DGeometry g, const T* __restrict__ grad_out,
                                              const uint8_t* __restrict__ codes,
                                              T* __restrict__ grad_w) {
  const int64_t pairs = g.out_channels * g.kernel_size;
  const int64_t terms = g.batch * g.out_length;
  for (int64_t pi = blockIdx.x; pi < pairs; pi += gridDim.x) {
    const int64_t k = pi % g.kernel_size;
    const int64_t o = pi / g.kernel_size;
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    for (int64_t j = threadIdx.x; j < terms; j += blockDim.x) {
      const int64_t t = j % g.out_length;
      const int64_t b = j / g.out_length;
      const int64_t p = t * g.stride + k * g.dilation - g.pad_left;
      if (p < 0 || p >= g.length) continue;
      const uint8_t base = codes[b * g.length + p];
      const double go = static_cast<double>(grad_out[(b * g.out_channels + o) * g.out_length + t]);
      // Branch-free select keeps the accumulators in registers.
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[v] += base == v ? go : 0.0;
    }
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const double total = block_sum(acc[v]);
      if (threadIdx.x == 0) grad_w[(o * 4 + v) * g.kernel_size + k] = static_cast<T>(total);
    }
  }
}

// ---- Fused Conv1D + ReLU + GlobalMaxPool ------------------------------------------------------

inline constexpr int kFusedThreads = 128;

// Reduces the block's (value, position) pairs, larger value first, smaller position on ties
// (first argmax), and thread 0 stores relu(max) and its position (0 for an empty row). Every
// thread of the block calls it.
template <typename T>
__device__ void store_first_max(T best, int64_t best_t, T* out, int64_t* argmax) {
  __shared__ T best_value[kFusedThreads / 32];
  __shared__ int64_t best_index[kFusedThreads / 32];
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const T other = __shfl_down_sync(0xffffffffu, best, offset);
    const int64_t other_t = __shfl_down_sync(0xffffffffu, best_t, offset);
    if (other > best || (other == best && other_t < best_t)) {
      best = other;
      best_t = other_t;
    }
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // the previous row's thread 0 has read the slots
  if (lane == 0) {
    best_value[warp] = best;
    best_index[warp] = best_t;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int other = 1; other < kFusedThreads / 32; ++other) {
      if (best_value[other] > best || (best_value[other] == best && best_index[other] < best_t)) {
        best = best_value[other];
        best_t = best_index[other];
      }
    }
    *out = best > T(0) ? best : T(0);
    *argmax = best_t == INT64_MAX ? 0 : best_t;
  }
}

// The one-hot form (the reference model's first layer), for sequences and filters that fit
// 32-bit positions and shared memory (relu_max_codes_fits). The filter's weights sit in shared
// memory as ws[k * 5 + base], with a zero row for N (code >= 4), so a tap is one load and one
// add; windows inside the sequence skip the bounds checks. (The generic kernel below spent its
// issue slots on 64-bit index arithmetic: ncu on an H200, 30 us a launch for the reference
// batch, ALU the busiest pipe.) Same order of addition as the generic kernel.
template <typename T>
__global__ void __launch_bounds__(kFusedThreads)
    relu_max_codes_kernel(Conv1DGeometry g, const uint8_t* __restrict__ codes,
                          const T* __restrict__ w, const T* __restrict__ bias, T* __restrict__ out,
                          int64_t* __restrict__ argmax) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* ws = reinterpret_cast<T*>(shared_bytes);  // (K, 5)
  const int taps = static_cast<int>(g.kernel_size), length = static_cast<int>(g.length);
  const int out_length = static_cast<int>(g.out_length), stride = static_cast<int>(g.stride);
  const int dilation = static_cast<int>(g.dilation), pad = static_cast<int>(g.pad_left);
  const int64_t rows = g.batch * g.out_channels;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t o = row % g.out_channels;
    const uint8_t* r = codes + (row / g.out_channels) * g.length;
    __syncthreads();  // the previous row is done with ws
    for (int i = threadIdx.x; i < taps * 5; i += blockDim.x) {
      const int k = i / 5, base = i - k * 5;
      ws[i] = base < kBaseN ? w[(o * 4 + base) * taps + k] : T(0);
    }
    __syncthreads();
    const T b0 = bias ? bias[o] : T(0);
    T best = -INFINITY;
    int64_t best_t = INT64_MAX;
    for (int t = threadIdx.x; t < out_length; t += blockDim.x) {
      const int p0 = t * stride - pad;
      T acc = b0;
      if (p0 >= 0 && p0 + (taps - 1) * dilation < length) {
        const uint8_t* window = r + p0;
        for (int k = 0; k < taps; ++k) acc += ws[k * 5 + min(int{window[k * dilation]}, 4)];
      } else {
        for (int k = 0; k < taps; ++k) {
          const int p = p0 + k * dilation;
          if (p >= 0 && p < length) acc += ws[k * 5 + min(int{r[p]}, 4)];
        }
      }
      if (acc > best) {  // strictly greater: each thread keeps its first maximum
        best = acc;
        best_t = t;
      }
    }
    store_first_max(best, best_t, out + row, argmax + row);
  }
}

template <typename T>
bool relu_max_codes_fits(const Conv1DGeometry& g) {
  constexpr int64_t kPositions = int64_t{1} << 30;  // t * stride and p stay inside int
  return g.length < kPositions && g.out_length * g.stride < kPositions && g.pad_left < kPositions &&
         g.kernel_size * g.dilation < kPositions &&
         g.kernel_size * 5 * static_cast<int64_t>(sizeof(T)) <= 32 * 1024;
}

// One block per (b, o) row: threads take positions t, t + 128, ..., then store_first_max.
template <typename T>
__global__ void __launch_bounds__(kFusedThreads)
    relu_max_kernel(Conv1DGeometry g, const uint8_t* __restrict__ codes, const T* __restrict__ x,
                    const T* __restrict__ w, const T* __restrict__ bias, T* __restrict__ out,
                    int64_t* __restrict__ argmax) {
  const int64_t rows = g.batch * g.out_channels;
  const int64_t taps = g.kernel_size;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t o = row % g.out_channels;
    const int64_t b = row / g.out_channels;
    const T b0 = bias ? bias[o] : T(0);
    T best = -INFINITY;
    int64_t best_t = INT64_MAX;
    for (int64_t t = threadIdx.x; t < g.out_length; t += blockDim.x) {
      T acc = b0;
      if (codes) {
        const uint8_t* r = codes + b * g.length;
        const T* wo = w + o * 4 * taps;
        for (int64_t k = 0; k < taps; ++k) {
          const int64_t p = t * g.stride + k * g.dilation - g.pad_left;
          if (p < 0 || p >= g.length) continue;
          const uint8_t base = r[p];
          if (base < kBaseN) acc += wo[base * taps + k];
        }
      } else {
        const T* xb = x + b * g.in_channels * g.length;
        const T* wo = w + o * g.in_channels * taps;
        for (int64_t c = 0; c < g.in_channels; ++c) {
          for (int64_t k = 0; k < taps; ++k) {
            const int64_t p = t * g.stride + k * g.dilation - g.pad_left;
            if (p >= 0 && p < g.length) acc += wo[c * taps + k] * xb[c * g.length + p];
          }
        }
      }
      if (acc > best) {  // strictly greater: each thread keeps its first maximum
        best = acc;
        best_t = t;
      }
    }
    store_first_max(best, best_t, out + row, argmax + row);
  }
}

// grad_w (O, C, K) and grad_bias (O): one warp per weight (and per bias), summing over the
// batch the upstream gradient of every open (out > 0) row through its argmax window. The lanes
// take interleaved batch rows and add in float64; warp_sum's fixed tree combines them. (One
// thread per weight looping over the whole batch left the GPU nearly idle: the reference
// model has 960 weights.)
template <typename T>
__global__ void relu_max_backward_weight_kernel(Conv1DGeometry g, const T* __restrict__ grad_out,
                                                const uint8_t* __restrict__ codes,
                                                const T* __restrict__ x, const T* __restrict__ out,
                                                const int64_t* __restrict__ argmax,
                                                T* __restrict__ grad_w, T* __restrict__ grad_bias) {
  const int64_t weights = g.out_channels * g.in_channels * g.kernel_size;
  const int64_t n = weights + (grad_bias ? g.out_channels : 0);
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(blockDim.x / 32) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; i < n;
       i += warps) {  // uniform across the warp
    double total = 0.0;
    if (i >= weights) {
      const int64_t o = i - weights;
      for (int64_t b = lane; b < g.batch; b += 32) {
        const int64_t row = b * g.out_channels + o;
        if (out[row] > T(0)) total += static_cast<double>(grad_out[row]);
      }
    } else {
      const int64_t k = i % g.kernel_size;
      const int64_t c = (i / g.kernel_size) % g.in_channels;
      const int64_t o = i / (g.kernel_size * g.in_channels);
      for (int64_t b = lane; b < g.batch; b += 32) {
        const int64_t row = b * g.out_channels + o;
        if (!(out[row] > T(0))) continue;
        const int64_t p = argmax[row] * g.stride + k * g.dilation - g.pad_left;
        if (p < 0 || p >= g.length) continue;
        if (codes) {
          if (codes[b * g.length + p] == c) total += static_cast<double>(grad_out[row]);
        } else {
          total += static_cast<double>(grad_out[row] * x[(b * g.in_channels + c) * g.length + p]);
        }
      }
    }
    total = warp_sum(total);
    if (lane == 0) {
      if (i >= weights) {
        grad_bias[i - weights] = static_cast<T>(total);
      } else {
        grad_w[i] = static_cast<T>(total);
      }
    }
  }
}

// grad_x (B, C, L): one thread per input element, gathering the open rows whose argmax window
// covers it.
template <typename T>
__global__ void relu_max_backward_input_kernel(Conv1DGeometry g, const T* __restrict__ grad_out,
                                               const T* __restrict__ w, const T* __restrict__ out,
                                               const int64_t* __restrict__ argmax,
                                               T* __restrict__ grad_x) {
  const int64_t n = g.batch * g.in_channels * g.length;
  STRAND_GRID_STRIDE_LOOP(i, n) {
    const int64_t l = i % g.length;
    const int64_t c = (i / g.length) % g.in_channels;
    const int64_t b = i / (g.length * g.in_channels);
    T acc = T(0);
    for (int64_t o = 0; o < g.out_channels; ++o) {
      const int64_t row = b * g.out_channels + o;
      if (!(out[row] > T(0))) continue;
      const int64_t num = l + g.pad_left - argmax[row] * g.stride;
      if (num < 0 || num % g.dilation != 0) continue;
      const int64_t k = num / g.dilation;
      if (k >= g.kernel_size) continue;
      acc += grad_out[row] * w[(o * g.in_channels + c) * g.kernel_size + k];
    }
    grad_x[i] = acc;
  }
}

unsigned block_count(int64_t work) {
  return static_cast<unsigned>(std::clamp<int64_t>(work, 1, 65535L * 16));
}

}  // namespace

void conv1d_forward(DType dtype, const Conv1DGeometry& g, const void* x, const void* w,
                    const void* bias, void* out, cudaStream_t stream) {
  const int64_t n = g.batch * g.out_channels * g.out_length;
  if (n == 0) return;
  dispatch_float(dtype, "conv1d", [&](auto tag) {
    using T = decltype(tag);
    conv_forward_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, static_cast<const T*>(x), static_cast<const T*>(w), static_cast<const T*>(bias),
        static_cast<T*>(out));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void conv1d_backward_input(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                           const void* w, void* grad_x, cudaStream_t stream) {
  const int64_t n = g.batch * g.in_channels * g.length;
  if (n == 0) return;
  dispatch_float(dtype, "conv1d_backward_input", [&](auto tag) {
    using T = decltype(tag);
    conv_backward_input_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, static_cast<const T*>(grad_out), static_cast<const T*>(w), static_cast<T*>(grad_x));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void conv1d_backward_weight(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                            const void* x, void* grad_w, cudaStream_t stream) {
  const int64_t weights = g.out_channels * g.in_channels * g.kernel_size;
  if (weights == 0) return;
  dispatch_float(dtype, "conv1d_backward_weight", [&](auto tag) {
    using T = decltype(tag);
    conv_backward_weight_kernel<T><<<block_count(weights), kThreads, 0, stream>>>(
        g, static_cast<const T*>(grad_out), static_cast<const T*>(x), static_cast<T*>(grad_w));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void add_channel_bias(DType dtype, int64_t batch, int64_t channels, int64_t length,
                      const void* bias, void* out, cudaStream_t stream) {
  const int64_t n = batch * channels * length;
  if (n == 0 || bias == nullptr) return;
  dispatch_float(dtype, "conv1d bias", [&](auto tag) {
    using T = decltype(tag);
    add_bias_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        n, channels, length, static_cast<const T*>(bias), static_cast<T*>(out));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void conv1d_onehot_forward(DType dtype, const Conv1DGeometry& g, const uint8_t* codes,
                           const void* w, const void* bias, void* out, cudaStream_t stream) {
  const int64_t n = g.batch * g.out_channels * g.out_length;
  if (n == 0) return;
  dispatch_float(dtype, "conv1d_onehot", [&](auto tag) {
    using T = decltype(tag);
    onehot_forward_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        g, codes, static_cast<const T*>(w), static_cast<const T*>(bias), static_cast<T*>(out));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void one_hot_from_codes(DType dtype, int64_t batch, int64_t length, const uint8_t* codes, void* out,
                        cudaStream_t stream) {
  const int64_t n = batch * length;
  if (n == 0) return;
  dispatch_float(dtype, "one_hot_from_codes", [&](auto tag) {
    using T = decltype(tag);
    one_hot_kernel<T>
        <<<blocks_for(n), kThreads, 0, stream>>>(batch, length, codes, static_cast<T*>(out));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void conv1d_onehot_backward_weight(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                                   const uint8_t* codes, void* grad_w, cudaStream_t stream) {
  const int64_t pairs = g.out_channels * g.kernel_size;
  if (pairs == 0) return;
  dispatch_float(dtype, "conv1d_onehot_backward_weight", [&](auto tag) {
    using T = decltype(tag);
    onehot_backward_weight_kernel<T><<<block_count(pairs), kThreads, 0, stream>>>(
        g, static_cast<const T*>(grad_out), codes, static_cast<T*>(grad_w));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void conv1d_relu_max(DType dtype, const Conv1DGeometry& g, const uint8_t* codes, const void* x,
                     const void* w, const void* bias, void* out, int64_t* argmax,
                     cudaStream_t stream) {
  const int64_t rows = g.batch * g.out_channels;
  if (rows == 0) return;
  dispatch_float(dtype, "conv1d_relu_max", [&](auto tag) {
    using T = decltype(tag);
    if (codes != nullptr && relu_max_codes_fits<T>(g)) {
      const size_t shared = static_cast<size_t>(g.kernel_size) * 5 * sizeof(T);
      relu_max_codes_kernel<T><<<block_count(rows), kFusedThreads, shared, stream>>>(
          g, codes, static_cast<const T*>(w), static_cast<const T*>(bias), static_cast<T*>(out),
          argmax);
      return;
    }
    relu_max_kernel<T><<<block_count(rows), kFusedThreads, 0, stream>>>(
        g, codes, static_cast<const T*>(x), static_cast<const T*>(w), static_cast<const T*>(bias),
        static_cast<T*>(out), argmax);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void conv1d_relu_max_backward(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                              const uint8_t* codes, const void* x, const void* w, const void* out,
                              const int64_t* argmax, void* grad_x, void* grad_w, void* grad_bias,
                              cudaStream_t stream) {
  dispatch_float(dtype, "conv1d_relu_max_backward", [&](auto tag) {
    using T = decltype(tag);
    const int64_t n =
        g.out_channels * g.in_channels * g.kernel_size + (grad_bias ? g.out_channels : 0);
    if (n > 0) {
      constexpr int64_t kWarpsPerBlock = kThreads / 32;  // one warp per weight
      relu_max_backward_weight_kernel<T>
          <<<block_count((n + kWarpsPerBlock - 1) / kWarpsPerBlock), kThreads, 0, stream>>>(
              g, static_cast<const T*>(grad_out), codes, static_cast<const T*>(x),
              static_cast<const T*>(out), argmax, static_cast<T*>(grad_w),
              static_cast<T*>(grad_bias));
      STRAND_CUDA_CHECK_LAUNCH();
    }
    const int64_t nx = g.batch * g.in_channels * g.length;
    if (grad_x != nullptr && codes == nullptr && nx > 0) {
      relu_max_backward_input_kernel<T><<<blocks_for(nx), kThreads, 0, stream>>>(
          g, static_cast<const T*>(grad_out), static_cast<const T*>(w), static_cast<const T*>(out),
          argmax, static_cast<T*>(grad_x));
      STRAND_CUDA_CHECK_LAUNCH();
    }
  });
}

}  // namespace strand::kernels::cuda
