// In-place optimizer updates over contiguous (n) arrays, with PyTorch's semantics so that
// trajectories match torch.optim step for step:
//   SGD:     g += wd * p; buf = first ? g : momentum * buf + (1 - dampening) * g;
//            d = nesterov ? g + momentum * buf : buf (or g without momentum); p -= lr * d
//   Adam:    g += wd * p; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
//            p -= lr / (1 - b1^t) * m / (sqrt(v / (1 - b2^t)) + eps)
//   RMSprop: g += wd * p; sq = a sq + (1 - a) g^2; avg = centered ? a avg + (1 - a) g : 0;
//            denom = sqrt(sq - avg^2) + eps; with momentum: buf = mom buf + g / denom,
//            p -= lr buf; else p -= lr g / denom
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {

template <typename T>
void sgd_update(int64_t n, T* param, const T* grad, T* buffer, double lr, double momentum,
                double dampening, double weight_decay, bool nesterov, bool first_step) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    double g = static_cast<double>(grad[i]) + weight_decay * static_cast<double>(param[i]);
    if (momentum != 0.0) {
      const double b =
          first_step ? g : momentum * static_cast<double>(buffer[i]) + (1.0 - dampening) * g;
      buffer[i] = static_cast<T>(b);
      g = nesterov ? g + momentum * b : b;
    }
    param[i] = static_cast<T>(static_cast<double>(param[i]) - lr * g);
  }
}

template <typename T>
void adam_update(int64_t n, T* param, const T* grad, T* exp_avg, T* exp_avg_sq, double lr,
                 double beta1, double beta2, double eps, double weight_decay, int64_t step) {
  const double bias1 = 1.0 - std::pow(beta1, static_cast<double>(step));
  const double bias2 = 1.0 - std::pow(beta2, static_cast<double>(step));
  const double step_size = lr / bias1;
  const double bias2_sqrt = std::sqrt(bias2);
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(grad[i]) + weight_decay * static_cast<double>(param[i]);
    const double m = beta1 * static_cast<double>(exp_avg[i]) + (1.0 - beta1) * g;
    const double v = beta2 * static_cast<double>(exp_avg_sq[i]) + (1.0 - beta2) * g * g;
    exp_avg[i] = static_cast<T>(m);
    exp_avg_sq[i] = static_cast<T>(v);
    const double denom = std::sqrt(v) / bias2_sqrt + eps;
    param[i] = static_cast<T>(static_cast<double>(param[i]) - step_size * m / denom);
  }
}

template <typename T>
void rmsprop_update(int64_t n, T* param, const T* grad, T* square_avg, T* grad_avg, T* buffer,
                    double lr, double alpha, double eps, double weight_decay, double momentum,
                    bool centered) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(grad[i]) + weight_decay * static_cast<double>(param[i]);
    const double sq = alpha * static_cast<double>(square_avg[i]) + (1.0 - alpha) * g * g;
    square_avg[i] = static_cast<T>(sq);
    double variance = sq;
    if (centered) {
      const double avg = alpha * static_cast<double>(grad_avg[i]) + (1.0 - alpha) * g;
      grad_avg[i] = static_cast<T>(avg);
      variance = sq - avg * avg;
    }
    const double denom = std::sqrt(variance) + eps;
    if (momentum > 0.0) {
      const double b = momentum * static_cast<double>(buffer[i]) + g / denom;
      buffer[i] = static_cast<T>(b);
      param[i] = static_cast<T>(static_cast<double>(param[i]) - lr * b);
    } else {
      param[i] = static_cast<T>(static_cast<double>(param[i]) - lr * g / denom);
    }
  }
}

}  // namespace strand::kernels::cpu
