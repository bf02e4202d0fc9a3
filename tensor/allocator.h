// Allocator: the interface through which Storage gets memory on a device, and the
// registry of one allocator per device type (the CPU allocator is built in; the CUDA
// backend registers a caching device allocator).
#pragma once

#include <cstddef>

#include "core/device.h"

namespace strand {

/// Memory for tensor storage on one device type.
class Allocator {
 public:
  virtual ~Allocator() = default;
  /// Returns memory for `nbytes` bytes on `device`, aligned for any element type (64 bytes
  /// on the CPU so SIMD loads never straddle cache lines). nbytes may be 0.
  virtual void* allocate(size_t nbytes, Device device) = 0;
  /// Returns memory from allocate() (same nbytes and device).
  virtual void deallocate(void* pointer, size_t nbytes, Device device) = 0;
};

/// The allocator used for new tensors on `type`; throws when none is registered (e.g. CUDA
/// in a build without the CUDA backend).
Allocator& allocator_for(DeviceType type);
/// Replaces the allocator for a device type (the CUDA backend registers its own).
void set_allocator(DeviceType type, Allocator* allocator);

/// 64-byte aligned host memory.
class CpuAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device device) override;
  void deallocate(void* pointer, size_t nbytes, Device device) override;
};

}  // namespace strand
