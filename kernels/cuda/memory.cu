// CUDA kernels of the memory primitives: fill, and copy with dtype conversion (contracts:
// kernels/cuda/memory.h).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/memory.h"

namespace strand::kernels::cuda {
namespace {

// Every kernel below comes in a contiguous instantiation (kContiguous: plain indexing, no
// index math) and strided ones (common.cuh's offset_of, 32- or 64-bit Index); the launchers
// merge dimensions first (merge_dims) and pick with dispatch_layout.

template <typename T, bool kContiguous, typename Index>
__global__ void fill_kernel(T* out, IndexSpace space, StrideSet os, int64_t n, T value) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    if constexpr (kContiguous) {
      out[i] = value;
    } else {
      out[offset_of(static_cast<Index>(i), space, os)] = value;
    }
  }
}

template <typename Out, typename In, bool kContiguous, typename Index>
__global__ void copy_kernel(Out* out, StrideSet os, const In* in, StrideSet is, IndexSpace space,
                            int64_t n) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    if constexpr (kContiguous) {
      out[i] = static_cast<Out>(in[i]);
    } else {
      int64_t o = 0, x = 0;
      offsets_of(static_cast<Index>(i), space, os, is, o, x);
      out[o] = static_cast<Out>(in[x]);
    }
  }
}

}  // namespace

void fill(DType dtype, void* out, const IndexSpace& space_in, const StrideSet& out_strides_in,
          double value, cudaStream_t stream) {
  const int64_t n = space_in.numel();
  if (n == 0) return;
  IndexSpace space = space_in;
  StrideSet os = out_strides_in;
  merge_dims<1>(space, {&os});
  dispatch_all(dtype, [&](auto tag) {
    using T = decltype(tag);
    dispatch_layout(is_contiguous(space, os), n, [&](auto contiguous, auto index) {
      fill_kernel<T, decltype(contiguous)::value, decltype(index)>
          <<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(out), space, os, n,
                                                   static_cast<T>(value));
    });
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void copy_convert(DType out_dtype, void* out, const StrideSet& out_strides_in, DType in_dtype,
                  const void* in, const StrideSet& in_strides_in, const IndexSpace& space_in,
                  cudaStream_t stream) {
  const int64_t n = space_in.numel();
  if (n == 0) return;
  IndexSpace space = space_in;
  StrideSet os = out_strides_in, is = in_strides_in;
  merge_dims<2>(space, {&os, &is});
  const bool contiguous = is_contiguous(space, os) && is_contiguous(space, is);
  if (contiguous && out_dtype == in_dtype) {
    STRAND_CUDA_CHECK(cudaMemcpyAsync(out, in, static_cast<size_t>(n) * dtype_size(in_dtype),
                                      cudaMemcpyDeviceToDevice, stream));
    return;
  }
  dispatch_all(out_dtype, [&](auto out_tag) {
    using Out = decltype(out_tag);
    dispatch_all(in_dtype, [&](auto in_tag) {
      using In = decltype(in_tag);
      dispatch_layout(contiguous, n, [&](auto contiguous_tag, auto index) {
        copy_kernel<Out, In, decltype(contiguous_tag)::value, decltype(index)>
            <<<blocks_for(n), kThreads, 0, stream>>>(static_cast<Out*>(out), os,
                                                     static_cast<const In*>(in), is, space, n);
      });
    });
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
