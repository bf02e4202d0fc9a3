// bfloat16 copies of float32 device buffers, for cuBLAS's and cuDNN's bfloat16 math under
// --precision bf16 (tensor/precision.h): the operands are rounded into temporaries on the
// device's stream (kernels/cuda/bfloat16.h), the library runs on them, and a bfloat16 result is
// widened back into the op's float32 output. The temporaries are Tensors of 2 bytes a value,
// freed stream-ordered (graph memory nodes inside a CUDA graph capture).
#pragma once

#include <cstdint>

#include "core/device.h"
#include "tensor/tensor.h"

namespace strand::cuda {

/// The `count` float32 values at `src` on `device`, rounded to bfloat16 (to nearest even).
Tensor bfloat16_copy(const void* src, int64_t count, Device device);
/// Room for `count` bfloat16 values on `device`.
Tensor bfloat16_buffer(int64_t count, Device device);
/// dst[i] = the float32 value of bfloat16 src[i], for i < count.
void widen_bfloat16(const Tensor& src, void* dst, int64_t count, Device device);

}  // namespace strand::cuda
