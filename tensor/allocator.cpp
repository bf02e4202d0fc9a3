// The CPU allocator and the per-device allocator registry.
#include "tensor/allocator.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>

#include "core/error.h"
#include "tensor/backend.h"

namespace strand {
namespace {

constexpr size_t kCpuAlignment = 64;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCacheCpuBlocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCacheCpuBlocks = false;
#else
constexpr bool kCacheCpuBlocks = true;
#endif
#else
constexpr bool kCacheCpuBlocks = true;
#endif

size_t rounded_size(size_t nbytes) {
  // aligned_alloc needs a size that is a multiple of the alignment.
  const size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
  if (rounded == 0) return kCpuAlignment;
  if (!kCacheCpuBlocks || rounded < CpuAllocator::kCpuCacheMinBytes) return rounded;
  // Cached blocks come in size classes, four per power of two (at most 25% larger than asked),
  // so that tensors whose sizes vary a little from one batch to the next (windows of ISM and
  // variant scoring) reuse each other's blocks instead of each size filling the cache.
  size_t power = CpuAllocator::kCpuCacheMinBytes;
  while (power * 2 <= rounded) power *= 2;
  const size_t quarter = power / 4;
  return (rounded + quarter - 1) / quarter * quarter;
}

// Atomic: a backend module registers its allocator while other threads may be allocating.
std::array<std::atomic<Allocator*>, kNumDeviceTypes>& allocators() {
  static std::array<std::atomic<Allocator*>, kNumDeviceTypes> table = {&cpu_allocator(), nullptr};
  return table;
}

}  // namespace

CpuAllocator& cpu_allocator() {
  // Never destroyed: tensors in other static objects may be freed after it would be.
  static CpuAllocator* allocator = new CpuAllocator();
  return *allocator;
}

Allocator& allocator_for(DeviceType type) {
  Allocator* allocator = allocators()[static_cast<int>(type)].load(std::memory_order_acquire);
  if (allocator != nullptr) return *allocator;
  // The first tensor on a device type without a built-in backend loads its module, which
  // registers the allocator (or throws naming what is missing).
  ensure_backend(type);
  allocator = allocators()[static_cast<int>(type)].load(std::memory_order_acquire);
  STRAND_CHECK(allocator != nullptr, "the backend module of device type {} registered no allocator",
               static_cast<int>(type));
  return *allocator;
}

void set_allocator(DeviceType type, Allocator* allocator) {
  allocators()[static_cast<int>(type)].store(allocator, std::memory_order_release);
}

CpuAllocator::~CpuAllocator() { release_cache(); }

void* CpuAllocator::allocate(size_t nbytes, Device /*device*/) {
  const size_t rounded = rounded_size(nbytes);
  if (kCacheCpuBlocks && rounded >= kCpuCacheMinBytes) {
    std::lock_guard lock(mutex_);
    auto found = free_blocks_.find(rounded);
    if (found != free_blocks_.end() && !found->second.empty()) {
      void* pointer = found->second.back();
      found->second.pop_back();
      cached_bytes_ -= rounded;
      return pointer;
    }
  }
  void* pointer = std::aligned_alloc(kCpuAlignment, rounded);
  if (pointer == nullptr) {
    release_cache();  // what the cache holds may be what this allocation needs
    pointer = std::aligned_alloc(kCpuAlignment, rounded);
  }
  if (pointer == nullptr) {
    throw Error(fmt::format("out of host memory: could not allocate {} bytes", nbytes));
  }
  return pointer;
}

void CpuAllocator::deallocate(void* pointer, size_t nbytes, Device /*device*/) {
  const size_t rounded = rounded_size(nbytes);
  if (kCacheCpuBlocks && rounded >= kCpuCacheMinBytes) {
    std::lock_guard lock(mutex_);
    if (cached_bytes_ + rounded <= kCpuCacheMaxBytes) {
      free_blocks_[rounded].push_back(pointer);
      cached_bytes_ += rounded;
      return;
    }
  }
  std::free(pointer);
}

size_t CpuAllocator::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

void CpuAllocator::release_cache() {
  std::lock_guard lock(mutex_);
  for (auto& [size, blocks] : free_blocks_) {
    for (void* block : blocks) std::free(block);
  }
  free_blocks_.clear();
  cached_bytes_ = 0;
}

}  // namespace strand
