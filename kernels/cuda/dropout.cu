// Dropout's CUDA kernel (contract: kernels/cuda/dropout.h).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/dropout.h"

namespace strand::kernels::cuda {
namespace {

template <typename T>
__global__ void dropout_kernel(DropoutMask mask, uint64_t stream_bits, int64_t n, const T* x,
                               T* out) {
  STRAND_GRID_STRIDE_LOOP(i, n) {
    out[i] = x[i] * mask.factor<T>(stream_bits, static_cast<uint64_t>(i));
  }
}

}  // namespace

void apply_dropout_mask(DType dtype, const DropoutMask& mask, int64_t n, const void* x, void* out,
                        cudaStream_t stream) {
  if (n == 0) return;
  dispatch_float(dtype, "dropout", [&](auto tag) {
    using T = decltype(tag);
    dropout_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        mask, mask.stream(), n, static_cast<const T*>(x), static_cast<T*>(out));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
