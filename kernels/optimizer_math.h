// The per-element optimizer updates, shared by the CPU loops (kernels/cpu/optimizer_updates.h)
// and the CUDA kernels (kernels/cuda/optimizer_updates.cu), so both backends follow one formula.
// PyTorch's semantics, so trajectories match torch.optim step for step; arithmetic in double
// whatever the parameter type:
//   SGD:     g += wd * p; buf = first ? g : momentum * buf + (1 - dampening) * g;
//            d = nesterov ? g + momentum * buf : buf (or g without momentum); p -= lr * d
//   Adam:    g += wd * p; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
//            p -= lr / (1 - b1^t) * m / (sqrt(v / (1 - b2^t)) + eps)
//   RMSprop: g += wd * p; sq = a sq + (1 - a) g^2; avg = centered ? a avg + (1 - a) g : 0;
//            denom = sqrt(sq - avg^2) + eps; with momentum: buf = mom buf + g / denom,
//            p -= lr buf; else p -= lr g / denom
#pragma once

#include <cmath>

#include "core/host_device.h"

namespace strand::kernels {

/// Adam's hyper-parameters, written once: optim's AdamOptions is this struct (these defaults
/// are the user's), AdamUpdateOp carries it, and the CPU and CUDA launchers take it.
/// eps defaults to 1e-7, Keras's default (see optim/adam.h for why).
struct AdamHyperParameters {
  double learning_rate = 1e-3;  ///< step size
  double beta1 = 0.9;           ///< decay of the first moment
  double beta2 = 0.999;         ///< decay of the second moment
  double eps = 1e-7;            ///< added to the denominator
  double weight_decay = 0.0;    ///< L2 penalty added to the gradient (or decoupled: below)
  /// AdamW (Loshchilov & Hutter): the parameter shrinks by lr * weight_decay before the update
  /// instead of the penalty entering the gradient (PyTorch's torch.optim.AdamW).
  bool decoupled_weight_decay = false;
};

/// `buffer` is unused when momentum == 0.
template <typename T>
STRAND_HOST_DEVICE inline void sgd_element(T& param, T grad, T* buffer, double lr, double momentum,
                                           double dampening, double weight_decay, bool nesterov,
                                           bool first_step) {
  double g = static_cast<double>(grad) + weight_decay * static_cast<double>(param);
  if (momentum != 0.0) {
    const double b =
        first_step ? g : momentum * static_cast<double>(*buffer) + (1.0 - dampening) * g;
    *buffer = static_cast<T>(b);
    g = nesterov ? g + momentum * b : b;
  }
  param = static_cast<T>(static_cast<double>(param) - lr * g);
}

/// What one Adam step multiplies and adds, from the hyper-parameters at the 1-based `step` (a
/// double: the device schedule holds it so) and the learning rate in force.
struct AdamStepScale {
  double step_size;   ///< lr / (1 - beta1^t)
  double bias2_sqrt;  ///< sqrt(1 - beta2^t)
  double decay;       ///< the parameter's factor before the update: 1 - lr * wd for AdamW, else 1
  double l2;          ///< the L2 penalty added to the gradient: wd for Adam, else 0
};
STRAND_HOST_DEVICE inline AdamStepScale adam_step_scale(double learning_rate, double beta1,
                                                        double beta2, double step,
                                                        double weight_decay, bool decoupled) {
  return {learning_rate / (1.0 - std::pow(beta1, step)), std::sqrt(1.0 - std::pow(beta2, step)),
          decoupled ? 1.0 - learning_rate * weight_decay : 1.0, decoupled ? 0.0 : weight_decay};
}

/// One element of Adam (or AdamW), with `scale` from adam_step_scale.
template <typename T>
STRAND_HOST_DEVICE inline void adam_element(T& param, T grad, T& exp_avg, T& exp_avg_sq,
                                            const AdamStepScale& scale, double beta1, double beta2,
                                            double eps) {
  const double p = static_cast<double>(param) * scale.decay;
  const double g = static_cast<double>(grad) + scale.l2 * static_cast<double>(param);
  const double m = beta1 * static_cast<double>(exp_avg) + (1.0 - beta1) * g;
  const double v = beta2 * static_cast<double>(exp_avg_sq) + (1.0 - beta2) * g * g;
  exp_avg = static_cast<T>(m);
  exp_avg_sq = static_cast<T>(v);
  param = static_cast<T>(p - scale.step_size * m / (std::sqrt(v) / scale.bias2_sqrt + eps));
}

/// `grad_avg` is used only when centered, `buffer` only when momentum > 0.
template <typename T>
STRAND_HOST_DEVICE inline void rmsprop_element(T& param, T grad, T& square_avg, T* grad_avg,
                                               T* buffer, double lr, double alpha, double eps,
                                               double weight_decay, double momentum,
                                               bool centered) {
  const double g = static_cast<double>(grad) + weight_decay * static_cast<double>(param);
  const double sq = alpha * static_cast<double>(square_avg) + (1.0 - alpha) * g * g;
  square_avg = static_cast<T>(sq);
  double variance = sq;
  if (centered) {
    const double avg = alpha * static_cast<double>(*grad_avg) + (1.0 - alpha) * g;
    *grad_avg = static_cast<T>(avg);
    variance = sq - avg * avg;
  }
  const double denom = std::sqrt(variance) + eps;
  if (momentum > 0.0) {
    const double b = momentum * static_cast<double>(*buffer) + g / denom;
    *buffer = static_cast<T>(b);
    param = static_cast<T>(static_cast<double>(param) - lr * b);
  } else {
    param = static_cast<T>(static_cast<double>(param) - lr * g / denom);
  }
}

}  // namespace strand::kernels
