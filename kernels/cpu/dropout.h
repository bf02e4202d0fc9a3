// Dropout's CPU loop: out[i] = x[i] * mask.factor(i), x and out contiguous of n elements. The
// forward and the backward pass are the same loop (the backward on the output gradient).
#pragma once

#include <cstdint>

#include "kernels/cpu/strided_loop.h"
#include "kernels/dropout_math.h"

namespace strand::kernels::cpu {

template <typename T>
void apply_dropout_mask(const DropoutMask& mask, int64_t n, const T* x, T* out) {
  const uint64_t stream = mask.stream();
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) {
    out[i] = x[i] * mask.factor<T>(stream, static_cast<uint64_t>(i));
  }
}

}  // namespace strand::kernels::cpu
