// CUDA kernels: fill, copy with dtype conversion, unary and broadcast binary maps, the
// pointwise backward rules, BCE from logits, and the fused optimizer updates.
#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/optimizer_math.h"

namespace strand::kernels::cuda {
namespace {

// ---- Fill / copy ----------------------------------------------------------------------

template <typename T>
__global__ void fill_kernel(T* out, IndexSpace space, StrideSet os, int64_t n, bool contiguous,
                            T value) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    if (contiguous) {
      out[i] = value;
    } else {
      const StrideSet* s[1] = {&os};
      int64_t off[1];
      strided_offsets<1>(i, space, s, off);
      out[off[0]] = value;
    }
  }
}

template <typename Out, typename In>
__global__ void copy_kernel(Out* out, StrideSet os, const In* in, StrideSet is, IndexSpace space,
                            int64_t n, bool contiguous) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    if (contiguous) {
      out[i] = static_cast<Out>(in[i]);
    } else {
      const StrideSet* s[2] = {&os, &is};
      int64_t off[2];
      strided_offsets<2>(i, space, s, off);
      out[off[0]] = static_cast<Out>(in[off[1]]);
    }
  }
}

// ---- Unary / binary -----------------------------------------------------------------------

// y = f(x) element by element; F: a functor T -> T (one kernel per unary kind and for affine,
// so no per-element switch).
template <typename T, typename F>
__global__ void map_kernel(F f, const T* x, StrideSet xs, T* out, StrideSet os, IndexSpace space,
                           int64_t n, bool contiguous) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    if (contiguous) {
      out[i] = f(x[i]);
    } else {
      const StrideSet* s[2] = {&xs, &os};
      int64_t off[2];
      strided_offsets<2>(i, space, s, off);
      out[off[1]] = f(x[off[0]]);
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

template <typename T>
__global__ void binary_kernel(Binary kind, const T* a, StrideSet as, const T* b, StrideSet bs,
                              T* out, StrideSet os, IndexSpace space, int64_t n, bool contiguous) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    if (contiguous) {
      out[i] = apply_binary(kind, a[i], b[i]);
    } else {
      const StrideSet* s[3] = {&as, &bs, &os};
      int64_t off[3];
      strided_offsets<3>(i, space, s, off);
      out[off[2]] = apply_binary(kind, a[off[0]], b[off[1]]);
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

void fill(DType dtype, void* out, const IndexSpace& space, const StrideSet& out_strides,
          double value, cudaStream_t stream) {
  const int64_t n = space.numel();
  if (n == 0) return;
  const bool contiguous = is_contiguous(space, out_strides);
  dispatch_all(dtype, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(out), space, out_strides,
                                                           n, contiguous, static_cast<T>(value));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void copy_convert(DType out_dtype, void* out, const StrideSet& out_strides, DType in_dtype,
                  const void* in, const StrideSet& in_strides, const IndexSpace& space,
                  cudaStream_t stream) {
  const int64_t n = space.numel();
  if (n == 0) return;
  const bool contiguous = is_contiguous(space, out_strides) && is_contiguous(space, in_strides);
  if (contiguous && out_dtype == in_dtype) {
    STRAND_CUDA_CHECK(cudaMemcpyAsync(out, in, static_cast<size_t>(n) * dtype_size(in_dtype),
                                      cudaMemcpyDeviceToDevice, stream));
    return;
  }
  dispatch_all(out_dtype, [&](auto out_tag) {
    using Out = decltype(out_tag);
    dispatch_all(in_dtype, [&](auto in_tag) {
      using In = decltype(in_tag);
      copy_kernel<Out, In><<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<Out*>(out), out_strides, static_cast<const In*>(in), in_strides, space, n,
          contiguous);
    });
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void unary(DType dtype, UnaryKind kind, const void* x, const StrideSet& x_strides, void* out,
           const StrideSet& out_strides, const IndexSpace& space, cudaStream_t stream) {
  const int64_t n = space.numel();
  if (n == 0) return;
  const bool contiguous = is_contiguous(space, x_strides) && is_contiguous(space, out_strides);
  dispatch_float(dtype, "unary", [&](auto tag) {
    using T = decltype(tag);
    visit_unary(kind, [&](auto k) {
      map_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
          UnaryFn<T, decltype(k)::value>{}, static_cast<const T*>(x), x_strides,
          static_cast<T*>(out), out_strides, space, n, contiguous);
    });
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void affine(DType dtype, const void* x, const StrideSet& x_strides, void* out,
            const StrideSet& out_strides, const IndexSpace& space, double scale, double shift,
            cudaStream_t stream) {
  const int64_t n = space.numel();
  if (n == 0) return;
  const bool contiguous = is_contiguous(space, x_strides) && is_contiguous(space, out_strides);
  dispatch_float(dtype, "affine", [&](auto tag) {
    using T = decltype(tag);
    map_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        AffineFn<T>{static_cast<T>(scale), static_cast<T>(shift)}, static_cast<const T*>(x),
        x_strides, static_cast<T*>(out), out_strides, space, n, contiguous);
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

void binary(DType dtype, Binary kind, const void* a, const StrideSet& a_strides, const void* b,
            const StrideSet& b_strides, void* out, const StrideSet& out_strides,
            const IndexSpace& space, cudaStream_t stream) {
  const int64_t n = space.numel();
  if (n == 0) return;
  const bool contiguous = is_contiguous(space, a_strides) && is_contiguous(space, b_strides) &&
                          is_contiguous(space, out_strides);
  dispatch_float(dtype, "binary", [&](auto tag) {
    using T = decltype(tag);
    binary_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        kind, static_cast<const T*>(a), a_strides, static_cast<const T*>(b), b_strides,
        static_cast<T*>(out), out_strides, space, n, contiguous);
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
