// CUDA kernels of the element-wise maps: the unary kinds (kernels/unary_math.h), affine, and
// the broadcast binary kinds with the pointwise backward rules (contracts:
// kernels/cuda/elementwise.h).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/elementwise.h"

namespace strand::kernels::cuda {
namespace {

// Every kernel below comes in a contiguous instantiation (kContiguous: plain indexing, no
// index math) and strided ones (common.cuh's offset_of, 32- or 64-bit Index); the launchers
// merge dimensions first (merge_dims) and pick with dispatch_layout.

// y = f(x) element by element; F: a functor T -> T (one kernel per unary kind and for affine,
// so no per-element switch).
template <typename T, bool kContiguous, typename Index, typename F>
__global__ void map_kernel(F f, const T* x, StrideSet xs, T* out, StrideSet os, IndexSpace space,
                           int64_t n) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    if constexpr (kContiguous) {
      out[i] = f(x[i]);
    } else {
      int64_t xo = 0, o = 0;
      offsets_of(static_cast<Index>(i), space, xs, os, xo, o);
      out[o] = f(x[xo]);
    }
  }
}

// The formula of kernels/unary_math.h for the kind K.
template <typename T, UnaryKind K>
struct UnaryFn {
  __device__ T operator()(T v) const { return unary_of<K>(v); }
};

template <typename T>
struct AffineFn {
  T scale;
  T shift;
  __device__ T operator()(T v) const { return v * scale + shift; }
};

template <typename T>
__device__ __forceinline__ T apply_binary(Binary kind, T a, T b) {
  switch (kind) {
    case Binary::kAdd:
      return a + b;
    case Binary::kSub:
      return a - b;
    case Binary::kMul:
      return a * b;
    case Binary::kDiv:
      return a / b;
    case Binary::kMaximum:
      return (a != a || b != b) ? a + b : (a > b ? a : b);
    case Binary::kGreater:
      return a > b ? T(1) : T(0);
    case Binary::kReluBackward:
      return b > T(0) ? a : T(0);
    case Binary::kSigmoidBackward:
      return a * b * (T(1) - b);
  }
  return a;
}

template <typename T, bool kContiguous, typename Index>
__global__ void binary_kernel(Binary kind, const T* a, StrideSet as, const T* b, StrideSet bs,
                              T* out, StrideSet os, IndexSpace space, int64_t n) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    if constexpr (kContiguous) {
      out[i] = apply_binary(kind, a[i], b[i]);
    } else {
      int64_t ao = 0, bo = 0, o = 0;
      offsets_of(static_cast<Index>(i), space, as, bs, os, ao, bo, o);
      out[o] = apply_binary(kind, a[ao], b[bo]);
    }
  }
}

}  // namespace

// out = f(x) over `space` (merged first) for any functor f.
template <typename T, typename F>
void launch_map(F f, const T* x, const StrideSet& x_strides_in, T* out,
                const StrideSet& out_strides_in, const IndexSpace& space_in, cudaStream_t stream) {
  const int64_t n = space_in.numel();
  IndexSpace space = space_in;
  StrideSet xs = x_strides_in, os = out_strides_in;
  merge_dims<2>(space, {&xs, &os});
  dispatch_layout(is_contiguous(space, xs) && is_contiguous(space, os), n,
                  [&](auto contiguous, auto index) {
                    map_kernel<T, decltype(contiguous)::value, decltype(index)>
                        <<<blocks_for(n), kThreads, 0, stream>>>(f, x, xs, out, os, space, n);
                  });
}

void unary(DType dtype, UnaryKind kind, const void* x, const StrideSet& x_strides, void* out,
           const StrideSet& out_strides, const IndexSpace& space, cudaStream_t stream) {
  if (space.numel() == 0) return;
  dispatch_float(dtype, "unary", [&](auto tag) {
    using T = decltype(tag);
    visit_unary(kind, [&](auto k) {
      launch_map<T>(UnaryFn<T, decltype(k)::value>{}, static_cast<const T*>(x), x_strides,
                    static_cast<T*>(out), out_strides, space, stream);
    });
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void affine(DType dtype, const void* x, const StrideSet& x_strides, void* out,
            const StrideSet& out_strides, const IndexSpace& space, double scale, double shift,
            cudaStream_t stream) {
  if (space.numel() == 0) return;
  dispatch_float(dtype, "affine", [&](auto tag) {
    using T = decltype(tag);
    launch_map<T>(AffineFn<T>{static_cast<T>(scale), static_cast<T>(shift)},
                  static_cast<const T*>(x), x_strides, static_cast<T*>(out), out_strides, space,
                  stream);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void binary(DType dtype, Binary kind, const void* a, const StrideSet& a_strides_in, const void* b,
            const StrideSet& b_strides_in, void* out, const StrideSet& out_strides_in,
            const IndexSpace& space_in, cudaStream_t stream) {
  const int64_t n = space_in.numel();
  if (n == 0) return;
  IndexSpace space = space_in;
  StrideSet as = a_strides_in, bs = b_strides_in, os = out_strides_in;
  merge_dims<3>(space, {&as, &bs, &os});
  const bool contiguous =
      is_contiguous(space, as) && is_contiguous(space, bs) && is_contiguous(space, os);
  dispatch_float(dtype, "binary", [&](auto tag) {
    using T = decltype(tag);
    dispatch_layout(contiguous, n, [&](auto contiguous_tag, auto index) {
      binary_kernel<T, decltype(contiguous_tag)::value, decltype(index)>
          <<<blocks_for(n), kThreads, 0, stream>>>(kind, static_cast<const T*>(a), as,
                                                   static_cast<const T*>(b), bs,
                                                   static_cast<T*>(out), os, space, n);
    });
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
