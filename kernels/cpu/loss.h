// Binary cross-entropy from logits, elementwise, in the numerically stable form
//   loss = max(x, 0) - x * y + log1p(exp(-|x|)),  d loss / d x = sigmoid(x) - y,
// which never exponentiates a large positive number. Contiguous (n) arrays.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/cpu/elementwise.h"
#include "kernels/unary_math.h"

namespace strand::kernels::cpu {

template <typename T>
void bce_with_logits_forward(int64_t n, const T* logits, const T* targets, T* loss) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    const T x = logits[i];
    loss[i] = std::max(x, T(0)) - x * targets[i] + std::log1p(std::exp(-std::abs(x)));
  }
}

template <typename T>
void bce_with_logits_backward(int64_t n, const T* grad_out, const T* logits, const T* targets,
                              T* grad_logits) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    grad_logits[i] = grad_out[i] * (sigmoid_of(logits[i]) - targets[i]);
  }
}

}  // namespace strand::kernels::cpu
