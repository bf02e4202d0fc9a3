// In-place optimizer updates over contiguous (n) arrays on the CPU: OpenMP loops over the
// per-element rules of kernels/optimizer_math.h (PyTorch's semantics).
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/cpu/strided_loop.h"
#include "kernels/optimizer_math.h"

namespace strand::kernels::cpu {

template <typename T>
void sgd_update(int64_t n, T* param, const T* grad, T* buffer, double lr, double momentum,
                double dampening, double weight_decay, bool nesterov, bool first_step) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    sgd_element(param[i], grad[i], buffer ? buffer + i : nullptr, lr, momentum, dampening,
                weight_decay, nesterov, first_step);
  }
}

template <typename T>
void adam_update(int64_t n, T* param, const T* grad, T* exp_avg, T* exp_avg_sq,
                 const AdamHyperParameters& h, int64_t step) {
  const AdamStepScale scale =
      adam_step_scale(h.learning_rate, h.beta1, h.beta2, static_cast<double>(step), h.weight_decay,
                      h.decoupled_weight_decay);
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    adam_element(param[i], grad[i], exp_avg[i], exp_avg_sq[i], scale, h.beta1, h.beta2, h.eps);
  }
}

template <typename T>
void rmsprop_update(int64_t n, T* param, const T* grad, T* square_avg, T* grad_avg, T* buffer,
                    double lr, double alpha, double eps, double weight_decay, double momentum,
                    bool centered) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    rmsprop_element(param[i], grad[i], square_avg[i], grad_avg ? grad_avg + i : nullptr,
                    buffer ? buffer + i : nullptr, lr, alpha, eps, weight_decay, momentum,
                    centered);
  }
}

}  // namespace strand::kernels::cpu
