// Launcher of Dropout's CUDA kernel: out[i] = x[i] * mask.factor(i) over n contiguous elements,
// the same mask as the CPU loop (kernels/dropout_math.h). `step`: null, or a device int64 whose
// value replaces mask.step (read by the kernel, so a replayed CUDA graph draws a new mask).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/dropout_math.h"

namespace strand::kernels::cuda {

void apply_dropout_mask(DType dtype, const DropoutMask& mask, const int64_t* step, int64_t n,
                        const void* x, void* out, cudaStream_t stream);

}  // namespace strand::kernels::cuda
