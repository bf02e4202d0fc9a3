// BatchNormGeometry: the sizes the batch normalisation kernels need (CPU and CUDA), as plain
// integers. x is (B, C, L) contiguous, or (B, C) seen as L = 1; channel c's values are the
// B * L elements x[(b * C + c) * L + l].
#pragma once

#include <cstdint>

#include "core/host_device.h"

namespace strand::kernels {

struct BatchNormGeometry {
  int64_t batch = 0;     // B
  int64_t channels = 0;  // C
  int64_t length = 1;    // L (1 for (B, C) input)

  /// N: the values each channel's statistics are taken over.
  STRAND_HOST_DEVICE int64_t count() const { return batch * length; }
};

}  // namespace strand::kernels
