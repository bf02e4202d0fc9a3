// CUDA kernels of the fused optimizer updates: the per-element rules of
// kernels/optimizer_math.h, shared with the CPU (contracts: kernels/cuda/optimizer_updates.h).
#include <algorithm>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/optimizer_updates.h"

namespace strand::kernels::cuda {
namespace {

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
