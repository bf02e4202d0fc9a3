// The stream strand orders its work on, per device. One stream per device keeps every op,
// allocation (cudaMallocAsync) and copy stream-ordered; CUDA graph capture runs on it too.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "core/device.h"

namespace strand::cuda {

/// strand's stream for `device` (created on first use, non-blocking).
cudaStream_t stream(Device device);
/// True while `device`'s stream is being captured into a CUDA graph.
bool capturing(Device device);
/// cuBLAS handle for `device`, bound to stream(device).
cublasHandle_t cublas(Device device);

}  // namespace strand::cuda
