// Allocator: the interface through which Storage gets memory on a device, and the
// registry of one allocator per device type (the CPU allocator is built in; the CUDA
// backend module registers a caching device allocator when it is loaded).
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

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

/// The allocator used for new tensors on `type`. The first call for CUDA loads the backend
/// module (tensor/backend.h); throws naming what is missing when it cannot be loaded.
Allocator& allocator_for(DeviceType type);
/// Replaces the allocator for a device type (the CUDA module registers its own).
void set_allocator(DeviceType type, Allocator* allocator);

/// 64-byte aligned host memory. Blocks of at least kCpuCacheMinBytes are kept when freed (up
/// to kCpuCacheMaxBytes in all) and handed out again for the same size class (four per power
/// of two): a training step
/// allocates the same activation and gradient sizes every time, and memory the C library
/// returned to the kernel faults page by page when touched again (a quarter of a small conv
/// network's step time before this cache). Builds with AddressSanitizer cache nothing, so that
/// a use after free is still caught.
class CpuAllocator final : public Allocator {
 public:
  static constexpr size_t kCpuCacheMinBytes = size_t{64} << 10;
  static constexpr size_t kCpuCacheMaxBytes = size_t{1} << 30;

  ~CpuAllocator() override;
  void* allocate(size_t nbytes, Device device) override;
  void deallocate(void* pointer, size_t nbytes, Device device) override;
  /// Bytes held in the cache now (free blocks waiting for reuse).
  size_t cached_bytes() const;
  /// Frees every cached block.
  void release_cache();

 private:
  mutable std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_blocks_;  // by rounded size
  size_t cached_bytes_ = 0;
};

/// The built-in CPU allocator (also allocator_for(DeviceType::kCPU) unless replaced).
CpuAllocator& cpu_allocator();

}  // namespace strand
