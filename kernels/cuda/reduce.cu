// CUDA kernels: sum over dimensions, max with first argmax, and the max backward scatter.
#include "kernels/cuda/common.cuh"

namespace strand::kernels::cuda {
namespace {

// One block per output (grid-stride over outputs); threads split the inner space.
template <typename T>
__global__ void sum_block_kernel(const T* x, IndexSpace outer, StrideSet os, IndexSpace inner,
                                 StrideSet is, int64_t outer_n, int64_t inner_n, T* out) {
  for (int64_t o = blockIdx.x; o < outer_n; o += gridDim.x) {
    const StrideSet* so[1] = {&os};
    int64_t base[1];
    strided_offsets<1>(o, outer, so, base);
    double acc = 0.0;
    for (int64_t i = threadIdx.x; i < inner_n; i += blockDim.x) {
      const StrideSet* si[1] = {&is};
      int64_t off[1];
      strided_offsets<1>(i, inner, si, off);
      acc += static_cast<double>(x[base[0] + off[0]]);
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) out[o] = static_cast<T>(acc);
  }
}

// One thread per output, for short inner spaces.
template <typename T>
__global__ void sum_thread_kernel(const T* x, IndexSpace outer, StrideSet os, IndexSpace inner,
                                  StrideSet is, int64_t outer_n, int64_t inner_n, T* out) {
  STRAND_GRID_STRIDE_LOOP(o, outer_n) {
    const StrideSet* so[1] = {&os};
    int64_t base[1];
    strided_offsets<1>(o, outer, so, base);
    double acc = 0.0;
    for (int64_t i = 0; i < inner_n; ++i) {
      const StrideSet* si[1] = {&is};
      int64_t off[1];
      strided_offsets<1>(i, inner, si, off);
      acc += static_cast<double>(x[base[0] + off[0]]);
    }
    out[o] = static_cast<T>(acc);
  }
}

template <typename T>
__global__ void max_kernel(const T* x, IndexSpace outer, StrideSet os, int64_t lines, int64_t count,
                           int64_t stride, T* values, int64_t* indices) {
  STRAND_GRID_STRIDE_LOOP(line, lines) {
    const StrideSet* so[1] = {&os};
    int64_t base[1];
    strided_offsets<1>(line, outer, so, base);
    const T* row = x + base[0];
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

template <typename T>
__global__ void max_backward_kernel(const T* grad, const int64_t* indices, IndexSpace outer,
                                    StrideSet gs, int64_t lines, int64_t stride, T* grad_in) {
  STRAND_GRID_STRIDE_LOOP(line, lines) {
    const StrideSet* so[1] = {&gs};
    int64_t base[1];
    strided_offsets<1>(line, outer, so, base);
    grad_in[base[0] + indices[line] * stride] += grad[line];
  }
}

}  // namespace

void sum(DType dtype, const void* x, const IndexSpace& outer, const StrideSet& outer_strides,
         const IndexSpace& inner, const StrideSet& inner_strides, void* out, cudaStream_t stream) {
  const int64_t outer_n = outer.numel();
  const int64_t inner_n = inner.numel();
  if (outer_n == 0) return;
  dispatch_float(dtype, "sum", [&](auto tag) {
    using T = decltype(tag);
    if (inner_n <= 64) {
      sum_thread_kernel<T><<<blocks_for(outer_n), kThreads, 0, stream>>>(
          static_cast<const T*>(x), outer, outer_strides, inner, inner_strides, outer_n, inner_n,
          static_cast<T*>(out));
    } else {
      const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(outer_n, 65535L * 4));
      sum_block_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(x), outer,
                                                           outer_strides, inner, inner_strides,
                                                           outer_n, inner_n, static_cast<T*>(out));
    }
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void max(DType dtype, const void* x, const IndexSpace& outer, const StrideSet& outer_strides,
         int64_t count, int64_t stride, void* values, int64_t* indices, cudaStream_t stream) {
  const int64_t lines = outer.numel();
  if (lines == 0 || count == 0) return;
  dispatch_float(dtype, "max", [&](auto tag) {
    using T = decltype(tag);
    max_kernel<T><<<blocks_for(lines), kThreads, 0, stream>>>(static_cast<const T*>(x), outer,
                                                              outer_strides, lines, count, stride,
                                                              static_cast<T*>(values), indices);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void max_backward(DType dtype, const void* grad, const int64_t* indices, const IndexSpace& outer,
                  const StrideSet& grad_in_strides, int64_t stride, void* grad_in,
                  cudaStream_t stream) {
  const int64_t lines = outer.numel();
  if (lines == 0) return;
  dispatch_float(dtype, "max_backward", [&](auto tag) {
    using T = decltype(tag);
    max_backward_kernel<T><<<blocks_for(lines), kThreads, 0, stream>>>(
        static_cast<const T*>(grad), indices, outer, grad_in_strides, lines, stride,
        static_cast<T*>(grad_in));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
