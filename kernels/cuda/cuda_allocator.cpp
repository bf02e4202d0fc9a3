// The stream-ordered caching device allocator and the pinned host allocator.
#include "kernels/cuda/cuda_allocator.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_device.h"
#include "kernels/cuda/cuda_stream.h"

namespace strand::cuda {
namespace {

std::atomic<size_t> g_allocated{0};
std::atomic<size_t> g_peak{0};

void configure_pool(Device device) {
  static std::once_flag once[16];
  std::call_once(once[device.index], [&] {
    cudaMemPool_t pool = nullptr;
    STRAND_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device.index));
    uint64_t keep_everything = UINT64_MAX;
    STRAND_CUDA_CHECK(
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  });
}

}  // namespace

void* CudaCachingAllocator::allocate(size_t nbytes, Device device) {
  require_device(device);
  configure_pool(device);
  // Round to 512 bytes so that every tensor is aligned for vector loads and small tensors
  // share size classes in the pool.
  const size_t rounded = nbytes == 0 ? 512 : (nbytes + 511) / 512 * 512;
  void* pointer = nullptr;
  const cudaError_t status = cudaMallocAsync(&pointer, rounded, stream(device));
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    throw Error(fmt::format(
        "CUDA out of memory on {}: tried to allocate {} bytes ({:.1f} MiB); {:.1f} MiB free of "
        "{:.1f} MiB; strand holds {:.1f} MiB in tensors",
        device.to_string(), nbytes, nbytes / 1048576.0, free_bytes / 1048576.0,
        total_bytes / 1048576.0, g_allocated.load() / 1048576.0));
  }
  STRAND_CUDA_CHECK(status);
  const size_t now = g_allocated.fetch_add(rounded) + rounded;
  size_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  return pointer;
}

void CudaCachingAllocator::deallocate(void* pointer, size_t nbytes, Device device) {
  if (pointer == nullptr) return;
  const size_t rounded = nbytes == 0 ? 512 : (nbytes + 511) / 512 * 512;
  g_allocated.fetch_sub(rounded);
  // Never throws (runs from destructors); at process exit the runtime may already be gone.
  if (cudaSetDevice(device.index) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  if (cudaFreeAsync(pointer, stream(device)) != cudaSuccess) cudaGetLastError();
}

CudaCachingAllocator& caching_allocator() {
  static CudaCachingAllocator allocator;
  return allocator;
}

size_t allocated_bytes() { return g_allocated.load(); }
size_t peak_allocated_bytes() { return g_peak.load(); }

void release_cached_memory(Device device) {
  require_device(device);
  STRAND_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
  cudaMemPool_t pool = nullptr;
  STRAND_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device.index));
  STRAND_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
}

// ---- Pinned host memory ---------------------------------------------------------------

namespace {
std::mutex& pinned_mutex() {
  static std::mutex mutex;
  return mutex;
}
// Released blocks by size: batches come in a handful of sizes, and cudaHostAlloc is slow
// (it maps the pages for the device), so blocks are kept for reuse.
std::multimap<size_t, void*>& pinned_cache() {
  static auto* cache = new std::multimap<size_t, void*>();  // leaked: outlives static dtors
  return *cache;
}
}  // namespace

void* pinned_allocate(size_t nbytes) {
  const size_t rounded = nbytes == 0 ? 64 : (nbytes + 63) / 64 * 64;
  {
    std::lock_guard lock(pinned_mutex());
    auto it = pinned_cache().find(rounded);
    if (it != pinned_cache().end()) {
      void* pointer = it->second;
      pinned_cache().erase(it);
      return pointer;
    }
  }
  require_device(Device::cuda());
  void* pointer = nullptr;
  const cudaError_t status = cudaHostAlloc(&pointer, rounded, cudaHostAllocPortable);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw Error(fmt::format("out of pinned host memory: cudaHostAlloc of {} bytes failed", nbytes));
  }
  STRAND_CUDA_CHECK(status);
  return pointer;
}

void pinned_release(void* pointer, size_t nbytes) {
  if (pointer == nullptr) return;
  const size_t rounded = nbytes == 0 ? 64 : (nbytes + 63) / 64 * 64;
  std::lock_guard lock(pinned_mutex());
  pinned_cache().emplace(rounded, pointer);
}

data::BatchAllocator pinned_batch_allocator() {
  return {[](size_t nbytes) { return pinned_allocate(nbytes); },
          [](void* pointer, size_t nbytes) { pinned_release(pointer, nbytes); }};
}

Tensor pinned_empty(const Shape& shape, DType dtype) {
  const size_t nbytes = static_cast<size_t>(numel(shape)) * dtype_size(dtype);
  void* pointer = pinned_allocate(nbytes);
  return Tensor::from_blob(pointer, shape, dtype, Device::cpu(),
                           [nbytes](void* p) { pinned_release(p, nbytes); });
}

bool is_pinned(const void* pointer) {
  if (pointer == nullptr || !cuda_available()) return false;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace strand::cuda
