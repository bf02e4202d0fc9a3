// CUDA kernels: fill, copy with dtype conversion, unary and broadcast binary maps, the
// pointwise backward rules, BCE from logits, and the fused optimizer updates.
#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/optimizer_math.h"

namespace strand::kernels::cuda {
namespace {

// ---- Fill / copy ----------------------------------------------------------------------

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

// ---- Unary / binary -----------------------------------------------------------------------

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

// ---- BCE ----------------------------------------------------------------------------------

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

// ---- Optimizers: the per-element rules of kernels/optimizer_math.h, shared with the CPU

template <typename T>
__global__ void adam_kernel(int64_t n, T* param, const T* grad, T* m1, T* m2, AdamStepScale scale,
                            double beta1, double beta2, double eps) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    adam_element(param[i], grad[i], m1[i], m2[i], scale, beta1, beta2, eps);
  }
}

// With a schedule, the step's scale is computed once per block from the device values.
template <typename T>
__global__ void adam_scheduled_kernel(int64_t n, T* param, const T* grad, T* m1, T* m2,
                                      const double* schedule, double beta1, double beta2,
                                      double eps, double weight_decay, bool decoupled) {
  __shared__ AdamStepScale scale;
  if (threadIdx.x == 0) {
    scale = adam_step_scale(schedule[0], beta1, beta2, schedule[1], weight_decay, decoupled);
  }
  __syncthreads();
  STRAND_GRID_STRIDE_LOOP(i, n) {
    adam_element(param[i], grad[i], m1[i], m2[i], scale, beta1, beta2, eps);
  }
}

// schedule: null, or the device [lr, step] whose lr replaces `lr`.
template <typename T>
__global__ void sgd_kernel(int64_t n, T* param, const T* grad, T* buffer, double lr,
                           double momentum, double dampening, double weight_decay, bool nesterov,
                           bool first_step, const double* schedule) {
  if (schedule != nullptr) lr = schedule[0];
  STRAND_GRID_STRIDE_LOOP(i, n) {
    sgd_element(param[i], grad[i], buffer ? buffer + i : nullptr, lr, momentum, dampening,
                weight_decay, nesterov, first_step);
  }
}

template <typename T>
__global__ void rmsprop_kernel(int64_t n, T* param, const T* grad, T* square_avg, T* grad_avg,
                               T* buffer, double lr, double alpha, double eps, double weight_decay,
                               double momentum, bool centered, const double* schedule) {
  if (schedule != nullptr) lr = schedule[0];
  STRAND_GRID_STRIDE_LOOP(i, n) {
    rmsprop_element(param[i], grad[i], square_avg[i], grad_avg ? grad_avg + i : nullptr,
                    buffer ? buffer + i : nullptr, lr, alpha, eps, weight_decay, momentum,
                    centered);
  }
}

// One block row (blockIdx.y) per tensor; blocks along x stride over its elements.
__device__ __forceinline__ void adam_multi_tensor(const MultiTensorAdamArgs& args,
                                                  const AdamStepScale& scale, double beta1,
                                                  double beta2, double eps) {
  const int t = blockIdx.y;
  const int64_t n = args.numel[t];
  float* param = args.param[t];
  const float* grad = args.grad[t];
  float* m1 = args.exp_avg[t];
  float* m2 = args.exp_avg_sq[t];
  STRAND_GRID_STRIDE_LOOP(i, n) {
    adam_element(param[i], grad[i], m1[i], m2[i], scale, beta1, beta2, eps);
  }
}

__global__ void adam_multi_kernel(MultiTensorAdamArgs args, AdamStepScale scale, double beta1,
                                  double beta2, double eps) {
  adam_multi_tensor(args, scale, beta1, beta2, eps);
}

// As adam_multi_kernel, with the learning rate and step read from the device schedule
// [lr, step] that advance_schedule_kernel moved on earlier in the same stream.
__global__ void adam_multi_scheduled_kernel(MultiTensorAdamArgs args, const double* schedule,
                                            double beta1, double beta2, double eps,
                                            double weight_decay, bool decoupled) {
  __shared__ AdamStepScale scale;
  if (threadIdx.x == 0) {
    scale = adam_step_scale(schedule[0], beta1, beta2, schedule[1], weight_decay, decoupled);
  }
  __syncthreads();
  adam_multi_tensor(args, scale, beta1, beta2, eps);
}

__global__ void advance_schedule_kernel(double* schedule) { schedule[1] += 1.0; }

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

void adam_update(DType dtype, int64_t n, void* param, const void* grad, void* exp_avg,
                 void* exp_avg_sq, const AdamHyperParameters& h, int64_t step,
                 const double* schedule, cudaStream_t stream) {
  if (n == 0) return;
  if (schedule != nullptr) {
    dispatch_float(dtype, "adam_update", [&](auto tag) {
      using T = decltype(tag);
      adam_scheduled_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
          n, static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(exp_avg),
          static_cast<T*>(exp_avg_sq), schedule, h.beta1, h.beta2, h.eps, h.weight_decay,
          h.decoupled_weight_decay);
    });
    STRAND_CUDA_CHECK_LAUNCH();
    return;
  }
  const AdamStepScale scale =
      adam_step_scale(h.learning_rate, h.beta1, h.beta2, static_cast<double>(step), h.weight_decay,
                      h.decoupled_weight_decay);
  dispatch_float(dtype, "adam_update", [&](auto tag) {
    using T = decltype(tag);
    adam_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        n, static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(exp_avg),
        static_cast<T*>(exp_avg_sq), scale, h.beta1, h.beta2, h.eps);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void sgd_update(DType dtype, int64_t n, void* param, const void* grad, void* buffer, double lr,
                double momentum, double dampening, double weight_decay, bool nesterov,
                bool first_step, const double* schedule, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_float(dtype, "sgd_update", [&](auto tag) {
    using T = decltype(tag);
    sgd_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        n, static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(buffer), lr,
        momentum, dampening, weight_decay, nesterov, first_step, schedule);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void rmsprop_update(DType dtype, int64_t n, void* param, const void* grad, void* square_avg,
                    void* grad_avg, void* buffer, double lr, double alpha, double eps,
                    double weight_decay, double momentum, bool centered, const double* schedule,
                    cudaStream_t stream) {
  if (n == 0) return;
  dispatch_float(dtype, "rmsprop_update", [&](auto tag) {
    using T = decltype(tag);
    rmsprop_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        n, static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(square_avg),
        static_cast<T*>(grad_avg), static_cast<T*>(buffer), lr, alpha, eps, weight_decay, momentum,
        centered, schedule);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void adam_update_multi(const MultiTensorAdamArgs& args, const AdamHyperParameters& h, int64_t step,
                       cudaStream_t stream) {
  if (args.count == 0) return;
  int64_t largest = 0;
  for (int t = 0; t < args.count; ++t) largest = std::max(largest, args.numel[t]);
  if (largest == 0) return;
  const dim3 grid(std::min(blocks_for(largest), 1024u), static_cast<unsigned>(args.count));
  adam_multi_kernel<<<grid, kThreads, 0, stream>>>(
      args,
      adam_step_scale(h.learning_rate, h.beta1, h.beta2, static_cast<double>(step), h.weight_decay,
                      h.decoupled_weight_decay),
      h.beta1, h.beta2, h.eps);
  STRAND_CUDA_CHECK_LAUNCH();
}

void advance_schedule(double* schedule, cudaStream_t stream) {
  advance_schedule_kernel<<<1, 1, 0, stream>>>(schedule);
  STRAND_CUDA_CHECK_LAUNCH();
}

void adam_update_multi_scheduled(const MultiTensorAdamArgs& args, const double* schedule,
                                 const AdamHyperParameters& h, cudaStream_t stream) {
  if (args.count == 0) return;
  int64_t largest = 0;
  for (int t = 0; t < args.count; ++t) largest = std::max(largest, args.numel[t]);
  if (largest == 0) return;
  const dim3 grid(std::min(blocks_for(largest), 1024u), static_cast<unsigned>(args.count));
  adam_multi_scheduled_kernel<<<grid, kThreads, 0, stream>>>(
      args, schedule, h.beta1, h.beta2, h.eps, h.weight_decay, h.decoupled_weight_decay);
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
