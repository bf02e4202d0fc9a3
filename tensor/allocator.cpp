// The CPU allocator and the per-device allocator registry.
#include "tensor/allocator.h"

#include <array>
#include <cstdlib>
#include <new>

#include "core/error.h"

namespace strand {
namespace {

constexpr size_t kCpuAlignment = 64;

std::array<Allocator*, kNumDeviceTypes>& allocators() {
  static CpuAllocator cpu_allocator;
  static std::array<Allocator*, kNumDeviceTypes> table = {&cpu_allocator, nullptr};
  return table;
}

}  // namespace

Allocator& allocator_for(DeviceType type) {
  Allocator* allocator = allocators()[static_cast<int>(type)];
  STRAND_CHECK(allocator != nullptr,
               "no allocator for device type {}: this build of strand has no CUDA backend "
               "(configure with -DSTRAND_CUDA=ON on a machine with nvcc)",
               static_cast<int>(type));
  return *allocator;
}

void set_allocator(DeviceType type, Allocator* allocator) {
  allocators()[static_cast<int>(type)] = allocator;
}

void* CpuAllocator::allocate(size_t nbytes, Device /*device*/) {
  // aligned_alloc needs a size that is a multiple of the alignment.
  const size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
  void* pointer = std::aligned_alloc(kCpuAlignment, rounded == 0 ? kCpuAlignment : rounded);
  if (pointer == nullptr) {
    throw Error(fmt::format("out of host memory: could not allocate {} bytes", nbytes));
  }
  return pointer;
}

void CpuAllocator::deallocate(void* pointer, size_t /*nbytes*/, Device /*device*/) {
  std::free(pointer);
}

}  // namespace strand
