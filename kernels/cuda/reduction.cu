// CUDA kernels: sums over dimensions (and the sum of squares), max with first argmax, and the
// max backward scatter. Every reduction adds in a fixed order that depends on the shapes only
// (no atomics), so results are bit-identical from run to run.
#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/reduction.h"

namespace strand::kernels::cuda {
namespace {

// ---- Sums -------------------------------------------------------------------------------
// Three layouts, chosen from the shapes alone (SumPlan):
//  - thread per output, each adding its inner elements in order: short inner spaces, and so
//    many outputs over a strided inner space that threads alone fill the GPU (neighbouring
//    threads then read neighbouring addresses, coalesced);
//  - block per output: threads take interleaved elements, then block_sum's fixed tree;
//  - split: a few outputs over long inner spaces (a whole-tensor sum) get `splits` blocks
//    each, every block summing a fixed chunk into a float64 partial; a second kernel adds each
//    output's partials in order. Without the split one 256-thread block did a whole tensor.

inline constexpr int64_t kShortInner = 64;        // at most this many elements: thread per output
inline constexpr int64_t kThreadOutputs = 65536;  // strided inner, this many outputs: threads
inline constexpr int64_t kManyOutputs = 256;      // this many outputs or more: no split
inline constexpr int64_t kSumChunk = 8192;        // inner elements per block of a split sum
inline constexpr int64_t kMaxSplits = 2048;       // blocks per output of a split sum, at most

enum class SumLayout { kThreadPerOutput, kBlockPerOutput, kSplit };
struct SumPlan {
  SumLayout layout = SumLayout::kThreadPerOutput;
  int64_t splits = 1;  // blocks per output (kSplit)
  int64_t chunk = 0;   // inner elements per block (kSplit)
};

// The spaces after merge_dims: outer and inner, each with its strides.
struct SumSpaces {
  IndexSpace outer, inner;
  StrideSet outer_strides, inner_strides;
};

SumSpaces merged_spaces(const IndexSpace& outer, const StrideSet& outer_strides,
                        const IndexSpace& inner, const StrideSet& inner_strides) {
  SumSpaces s{outer, inner, outer_strides, inner_strides};
  merge_dims<1>(s.outer, {&s.outer_strides});
  merge_dims<1>(s.inner, {&s.inner_strides});
  return s;
}

SumPlan plan_sum(const SumSpaces& s) {
  const int64_t outer_n = s.outer.numel(), inner_n = s.inner.numel();
  SumPlan plan;
  const bool inner_contiguous = is_contiguous(s.inner, s.inner_strides);
  if (inner_n <= kShortInner || (!inner_contiguous && outer_n >= kThreadOutputs)) {
    plan.layout = SumLayout::kThreadPerOutput;
  } else if (outer_n >= kManyOutputs || inner_n <= kSumChunk) {
    plan.layout = SumLayout::kBlockPerOutput;
  } else {
    plan.layout = SumLayout::kSplit;
    plan.splits = std::min((inner_n + kSumChunk - 1) / kSumChunk, kMaxSplits);
    plan.chunk = (inner_n + plan.splits - 1) / plan.splits;
  }
  return plan;
}

// The value each element contributes: itself, or its square (sum of squares), in float64.
struct AsDouble {
  template <typename T>
  __device__ double operator()(T v) const {
    return static_cast<double>(v);
  }
};
struct Squared {
  template <typename T>
  __device__ double operator()(T v) const {
    const double d = static_cast<double>(v);
    return d * d;
  }
};

template <typename T, typename Out, typename F, bool kInnerContiguous, typename Index>
__global__ void sum_thread_kernel(const T* x, IndexSpace outer, StrideSet os, IndexSpace inner,
                                  StrideSet is, int64_t outer_n, int64_t inner_n, F f, Out* out) {
  STRAND_GRID_STRIDE_LOOP(o, outer_n) {
    const int64_t base = offset_of(static_cast<int64_t>(o), outer, os);
    double acc = 0.0;
    for (int64_t i = 0; i < inner_n; ++i) {
      const int64_t at = kInnerContiguous ? i : offset_of(static_cast<Index>(i), inner, is);
      acc += f(x[base + at]);
    }
    out[o] = static_cast<Out>(acc);
  }
}

// Block b of outer_n * splits sums inner elements [split * chunk, +chunk) of output
// b / splits. With `partials` it stores the float64 sum at partials[b]; without (splits 1),
// the output itself.
template <typename T, typename Out, typename F, bool kInnerContiguous, typename Index>
__global__ void sum_block_kernel(const T* x, IndexSpace outer, StrideSet os, IndexSpace inner,
                                 StrideSet is, int64_t outer_n, int64_t inner_n, int64_t splits,
                                 int64_t chunk, F f, Out* out, double* partials) {
  const int64_t blocks = outer_n * splits;
  for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {  // uniform across the block
    const int64_t o = b / splits;
    const int64_t begin = (b % splits) * chunk;
    const int64_t end = begin + chunk < inner_n ? begin + chunk : inner_n;
    const int64_t base = offset_of(static_cast<int64_t>(o), outer, os);
    double acc = 0.0;
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      const int64_t at = kInnerContiguous ? i : offset_of(static_cast<Index>(i), inner, is);
      acc += f(x[base + at]);
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
      if (partials != nullptr) {
        partials[b] = acc;
      } else {
        out[o] = static_cast<Out>(acc);
      }
    }
  }
}

// out[o] = the partials of output o added in order.
template <typename Out>
__global__ void sum_partials_kernel(const double* partials, int64_t outer_n, int64_t splits,
                                    Out* out) {
  STRAND_GRID_STRIDE_LOOP(o, outer_n) {
    double acc = 0.0;
    for (int64_t k = 0; k < splits; ++k) acc += partials[o * splits + k];
    out[o] = static_cast<Out>(acc);
  }
}

unsigned block_grid(int64_t blocks) {
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 65535L * 16));
}

template <typename T, typename Out, typename F>
void launch_sum(const T* x, const SumSpaces& s, F f, Out* out, double* workspace,
                cudaStream_t stream) {
  const int64_t outer_n = s.outer.numel(), inner_n = s.inner.numel();
  const SumPlan plan = plan_sum(s);
  const bool contiguous = is_contiguous(s.inner, s.inner_strides);
  dispatch_layout(contiguous, inner_n, [&](auto contiguous_tag, auto index) {
    constexpr bool kContiguous = decltype(contiguous_tag)::value;
    using Index = decltype(index);
    switch (plan.layout) {
      case SumLayout::kThreadPerOutput:
        sum_thread_kernel<T, Out, F, kContiguous, Index>
            <<<blocks_for(outer_n), kThreads, 0, stream>>>(
                x, s.outer, s.outer_strides, s.inner, s.inner_strides, outer_n, inner_n, f, out);
        break;
      case SumLayout::kBlockPerOutput:
        sum_block_kernel<T, Out, F, kContiguous, Index>
            <<<block_grid(outer_n), kThreads, 0, stream>>>(x, s.outer, s.outer_strides, s.inner,
                                                           s.inner_strides, outer_n, inner_n, 1,
                                                           inner_n, f, out, nullptr);
        break;
      case SumLayout::kSplit:
        if (workspace == nullptr) {
          ::strand::cuda::throw_library_error("strand", 0, "a split sum needs its workspace", "sum",
                                              __FILE__, __LINE__);
        }
        sum_block_kernel<T, Out, F, kContiguous, Index>
            <<<block_grid(outer_n * plan.splits), kThreads, 0, stream>>>(
                x, s.outer, s.outer_strides, s.inner, s.inner_strides, outer_n, inner_n,
                plan.splits, plan.chunk, f, out, workspace);
        STRAND_CUDA_CHECK_LAUNCH();
        sum_partials_kernel<Out>
            <<<blocks_for(outer_n), kThreads, 0, stream>>>(workspace, outer_n, plan.splits, out);
        break;
    }
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

// ---- Max --------------------------------------------------------------------------------

// Whether (value, index) beats the current (best, best_index): an index < 0 is "nothing yet";
// a NaN beats any number, and between NaNs or equal values the smaller index wins (the first
// argmax, NaN first, as on the CPU).
template <typename T>
__device__ __forceinline__ bool beats(T value, int64_t index, T best, int64_t best_index) {
  if (index < 0) return false;
  if (best_index < 0) return true;
  const bool value_nan = isnan(value), best_nan = isnan(best);
  if (value_nan != best_nan) return value_nan;
  if (value_nan || value == best) return index < best_index;
  return value > best;
}

// One thread per line (lines strided in memory: neighbouring threads read neighbouring
// addresses when the reduced dimension is not the innermost one).
template <typename T>
__global__ void max_kernel(const T* x, IndexSpace outer, StrideSet os, int64_t lines, int64_t count,
                           int64_t stride, T* values, int64_t* indices) {
  STRAND_GRID_STRIDE_LOOP(line, lines) {
    const T* row = x + offset_of(static_cast<int64_t>(line), outer, os);
    T best = row[0];
    int64_t best_index = 0;
    for (int64_t i = 1; i < count && !isnan(best); ++i) {
      const T value = row[i * stride];
      if (value > best || isnan(value)) {
        best = value;
        best_index = i;
      }
    }
    values[line] = best;
    indices[line] = best_index;
  }
}

// One warp per line of contiguous elements (the reduced dimension is the innermost one:
// global max pooling over positions): lanes read neighbouring elements, coalesced, each keeps
// its first maximum, and the warp merges them with `beats` (the result does not depend on the
// order of the merges: it is the first NaN, else the first maximum).
template <typename T>
__global__ void max_warp_kernel(const T* x, IndexSpace outer, StrideSet os, int64_t lines,
                                int64_t count, T* values, int64_t* indices) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(blockDim.x / 32) * gridDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
       line < lines; line += warps) {  // uniform across the warp
    const T* row = x + offset_of(static_cast<int64_t>(line), outer, os);
    T best = T(0);
    int64_t best_index = -1;
    for (int64_t i = lane; i < count; i += 32) {
      const T value = row[i];
      if (best_index < 0 || (!isnan(best) && (value > best || isnan(value)))) {
        best = value;
        best_index = i;
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      const T other = __shfl_down_sync(0xffffffffu, best, offset);
      const int64_t other_index = __shfl_down_sync(0xffffffffu, best_index, offset);
      if (beats(other, other_index, best, best_index)) {
        best = other;
        best_index = other_index;
      }
    }
    if (lane == 0) {
      values[line] = best;
      indices[line] = best_index;
    }
  }
}

template <typename T>
__global__ void max_backward_kernel(const T* grad, const int64_t* indices, IndexSpace outer,
                                    StrideSet gs, int64_t lines, int64_t stride, T* grad_in) {
  STRAND_GRID_STRIDE_LOOP(line, lines) {
    const int64_t base = offset_of(static_cast<int64_t>(line), outer, gs);
    grad_in[base + indices[line] * stride] += grad[line];
  }
}

}  // namespace

int64_t sum_workspace(const IndexSpace& outer, const StrideSet& outer_strides,
                      const IndexSpace& inner, const StrideSet& inner_strides) {
  const SumSpaces s = merged_spaces(outer, outer_strides, inner, inner_strides);
  const SumPlan plan = plan_sum(s);
  return plan.layout == SumLayout::kSplit ? s.outer.numel() * plan.splits : 0;
}

void sum(DType dtype, const void* x, const IndexSpace& outer, const StrideSet& outer_strides,
         const IndexSpace& inner, const StrideSet& inner_strides, void* out, double* workspace,
         cudaStream_t stream) {
  if (outer.numel() == 0) return;
  const SumSpaces s = merged_spaces(outer, outer_strides, inner, inner_strides);
  dispatch_float(dtype, "sum", [&](auto tag) {
    using T = decltype(tag);
    launch_sum<T, T>(static_cast<const T*>(x), s, AsDouble{}, static_cast<T*>(out), workspace,
                     stream);
  });
}

namespace {
// A contiguous run of n elements as a one-output sum.
SumSpaces whole_tensor(int64_t n) {
  SumSpaces s;
  s.inner.rank = 1;
  s.inner.extent[0] = n;
  s.inner_strides.stride[0] = 1;
  return s;  // outer: rank 0, one output at offset 0
}
}  // namespace

int64_t sum_of_squares_workspace(int64_t n) {
  const SumSpaces s = whole_tensor(n);
  const SumPlan plan = plan_sum(s);
  return plan.layout == SumLayout::kSplit ? plan.splits : 0;
}

void sum_of_squares(DType dtype, int64_t n, const void* x, double* out, double* workspace,
                    cudaStream_t stream) {
  const SumSpaces s = whole_tensor(n);
  dispatch_float(dtype, "sum_of_squares", [&](auto tag) {
    using T = decltype(tag);
    launch_sum<T, double>(static_cast<const T*>(x), s, Squared{}, out, workspace, stream);
  });
}

void max(DType dtype, const void* x, const IndexSpace& outer_in, const StrideSet& outer_strides_in,
         int64_t count, int64_t stride, void* values, int64_t* indices, cudaStream_t stream) {
  const int64_t lines = outer_in.numel();
  if (lines == 0 || count == 0) return;
  IndexSpace outer = outer_in;
  StrideSet os = outer_strides_in;
  merge_dims<1>(outer, {&os});
  dispatch_float(dtype, "max", [&](auto tag) {
    using T = decltype(tag);
    if (stride == 1 && count > 32) {
      constexpr int64_t kWarpsPerBlock = kThreads / 32;
      max_warp_kernel<T>
          <<<block_grid((lines + kWarpsPerBlock - 1) / kWarpsPerBlock), kThreads, 0, stream>>>(
              static_cast<const T*>(x), outer, os, lines, count, static_cast<T*>(values), indices);
    } else {
      max_kernel<T><<<blocks_for(lines), kThreads, 0, stream>>>(static_cast<const T*>(x), outer, os,
                                                                lines, count, stride,
                                                                static_cast<T*>(values), indices);
    }
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void max_backward(DType dtype, const void* grad, const int64_t* indices, const IndexSpace& outer_in,
                  const StrideSet& grad_in_strides_in, int64_t stride, void* grad_in,
                  cudaStream_t stream) {
  const int64_t lines = outer_in.numel();
  if (lines == 0) return;
  IndexSpace outer = outer_in;
  StrideSet gs = grad_in_strides_in;
  merge_dims<1>(outer, {&gs});
  dispatch_float(dtype, "max_backward", [&](auto tag) {
    using T = decltype(tag);
    max_backward_kernel<T><<<blocks_for(lines), kThreads, 0, stream>>>(
        static_cast<const T*>(grad), indices, outer, gs, lines, stride, static_cast<T*>(grad_in));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
