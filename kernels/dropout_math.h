// Dropout's mask, written once for the CPU loop and the CUDA kernel: element i of the tensor a
// layer drops at training step `step` is kept or not by a hash of (seed, step, i) alone, so a
// mask is the same on every backend and thread count, needs no storage (the backward pass
// recomputes it), and a resumed run repeats the uninterrupted one.
#pragma once

#include <cstdint>

#include "core/host_device.h"
#include "core/splitmix64.h"

namespace strand::kernels {

/// Which elements survive and how they are scaled: kept ones by 1 / (1 - rate).
struct DropoutMask {
  double rate = 0.0;  ///< the probability of dropping an element, in [0, 1)
  uint64_t seed = 0;  ///< the layer's own seed
  uint64_t step = 0;  ///< the training step (a new mask per step)

  /// The stream of this (seed, step): its elements' bits are hash(stream + i).
  STRAND_HOST_DEVICE uint64_t stream() const {
    return splitmix64_hash(seed ^ splitmix64_hash(step));
  }
  /// The factor element i is multiplied by: 0 when dropped, 1 / (1 - rate) when kept.
  template <typename T>
  STRAND_HOST_DEVICE T factor(uint64_t stream_bits, uint64_t i) const {
    // 53 random bits as a uniform double in [0, 1).
    const double u =
        static_cast<double>(splitmix64_hash(stream_bits + i) >> 11) * (1.0 / 9007199254740992.0);
    return u < rate ? T(0) : static_cast<T>(1.0 / (1.0 - rate));
  }
};

}  // namespace strand::kernels
