// Helpers of the CUDA suite: whether a GPU is usable, a visible skip, and GPU-vs-CPU checks.
// Every test here compares the CUDA kernel with the CPU kernel (the oracle) on the same inputs.
#pragma once

#include <cstdio>

#include "tensor/ops.h"
#include "test_helpers.h"
#ifdef STRAND_WITH_CUDA
#include "kernels/cuda/cuda_device.h"
#endif

namespace strand::testing {

inline bool has_gpu() {
#ifdef STRAND_WITH_CUDA
  return cuda::cuda_available();
#else
  return false;
#endif
}

/// Ends the test (as passed) with a printed "skipped: no CUDA device" when there is no GPU.
#define STRAND_REQUIRE_GPU()                                                \
  do {                                                                      \
    if (!::strand::testing::has_gpu()) {                                    \
      std::printf("skipped: no CUDA device (%s:%d)\n", __FILE__, __LINE__); \
      MESSAGE("skipped: no CUDA device");                                   \
      return;                                                               \
    }                                                                       \
  } while (false)

inline Tensor gpu(const Tensor& t) { return t.to(Device::cuda()); }

/// The GPU result (any device) agrees with the CPU oracle within `tolerance` (max abs diff).
inline void check_close(const Tensor& gpu_result, const Tensor& cpu_result, double tolerance,
                        const char* what) {
  INFO(what);
  REQUIRE(gpu_result.device().is_cuda());
  const double diff = max_abs_difference(gpu_result, cpu_result);
  CHECK_MESSAGE(diff <= tolerance, what, ": max |gpu - cpu| = ", diff, " > ", tolerance);
}

/// Tolerances: float64 results agree to rounding (1e-10 relative to O(1) values); float32
/// results to a few ulps of the accumulated sums.
inline double tolerance_for(DType dtype) { return dtype == DType::kFloat64 ? 1e-10 : 2e-5; }

}  // namespace strand::testing
