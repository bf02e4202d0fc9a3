// Dropout's CUDA kernel (contract: kernels/cuda/dropout.h).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/dropout.h"

namespace strand::kernels::cuda {
namespace {

// step: null (mask.step counts), or the device step, read here once per thread.
template <typename T>
__global__ void dropout_kernel(DropoutMask mask, const int64_t* step, int64_t n, const T* x,
                               T* out) {
  DropoutMask now = mask;
  if (step != nullptr) now.step = static_cast<uint64_t>(*step);
  const uint64_t stream_bits = now.stream();
  STRAND_GRID_STRIDE_LOOP(i, n) {
    out[i] = x[i] * now.factor<T>(stream_bits, static_cast<uint64_t>(i));
  }
}

}  // namespace

void apply_dropout_mask(DType dtype, const DropoutMask& mask, const int64_t* step, int64_t n,
                        const void* x, void* out, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_float(dtype, "dropout", [&](auto tag) {
    using T = decltype(tag);
    dropout_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        mask, step, n, static_cast<const T*>(x), static_cast<T*>(out));
  });
  STRAND_CUDA_CHECK_LAUNCH();
}

}  // namespace strand::kernels::cuda
