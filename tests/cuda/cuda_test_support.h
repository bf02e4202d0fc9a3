// Helpers of the CUDA suite: whether a GPU is usable, a visible skip, and GPU-vs-CPU checks.
// Every test here compares the CUDA kernel with the CPU kernel (the oracle) on the same inputs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "ops/elementwise.h"
#include "tensor/cuda_runtime.h"
#include "test_helpers.h"

namespace strand::testing {

/// Whether a CUDA device is usable: the CUDA module loads (tensor/backend.h) and sees one.
inline bool has_gpu() { return cuda_usable(); }

/// Whether the environment demands a GPU (STRAND_REQUIRE_GPU=1, for runs on GPU machines): a
/// test that would skip for want of a device fails instead.
inline bool gpu_required() {
  const char* value = std::getenv("STRAND_REQUIRE_GPU");
  return value != nullptr && std::string_view(value) == "1";
}

/// Without a usable GPU: skips the test (CTest reports it as Skipped), or fails it when
/// STRAND_REQUIRE_GPU=1.
#define STRAND_REQUIRE_GPU()                                    \
  do {                                                          \
    if (!::strand::testing::has_gpu()) {                        \
      if (::strand::testing::gpu_required()) {                  \
        FAIL("STRAND_REQUIRE_GPU=1 but no usable CUDA device: " \
             << ::strand::cuda_unusable_reason());              \
      }                                                         \
      STRAND_SKIP("no CUDA device");                            \
    }                                                           \
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
