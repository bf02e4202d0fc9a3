// bfloat16 copies of float32 device buffers (bfloat16_staging.h).
#include "tensor/cuda/bfloat16_staging.h"

#include "kernels/cuda/bfloat16.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/device.h"

namespace strand::cuda {

Tensor bfloat16_buffer(int64_t count, Device device) {
  return Tensor::empty({2 * count}, DType::kUInt8, device);
}

Tensor bfloat16_copy(const void* src, int64_t count, Device device) {
  Tensor copy = bfloat16_buffer(count, device);
  kernels::cuda::float_to_bfloat16(static_cast<const float*>(src),
                                   static_cast<uint16_t*>(copy.raw_data()), count, stream(device));
  return copy;
}

void widen_bfloat16(const Tensor& src, void* dst, int64_t count, Device device) {
  kernels::cuda::bfloat16_to_float(static_cast<const uint16_t*>(src.raw_data()),
                                   static_cast<float*>(dst), count, stream(device));
}

}  // namespace strand::cuda
