// The stream-ordered caching device allocator and the pinned host allocator.
#include "tensor/cuda/allocator.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "kernels/cuda/check.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/device.h"

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

// Requests are rounded up to 512 bytes so that every tensor is aligned for vector loads and
// small tensors share size classes in the pool. The rounding hides overruns of up to 511
// bytes from compute-sanitizer's memcheck, so STRAND_CUDA_EXACT_ALLOC=1 turns it off for
// sanitizer runs (the pool still aligns each block to 256 bytes).
bool exact_allocations() {
  static const bool exact = [] {
    const char* value = std::getenv("STRAND_CUDA_EXACT_ALLOC");
    return value != nullptr && std::string(value) == "1";
  }();
  return exact;
}

size_t block_size(size_t nbytes) {
  if (exact_allocations()) return nbytes == 0 ? 1 : nbytes;
  return nbytes == 0 ? 512 : (nbytes + 511) / 512 * 512;
}

// ---- Frees during graph capture
// A block allocated before a capture and freed during it (a gradient replaced by zero_grad,
// say) must not become a graph free node: CUDA refuses to free memory the graph did not
// allocate, and the captured kernels keep using the address on every replay. Such blocks are
// retained and handed to the graph, which frees them when it is destroyed. Blocks allocated
// during the capture are graph memory and are freed normally, unless the capture broke (an
// item() inside it invalidates it): its graph is discarded with the memory it would have
// allocated, so a free of such a block, during the capture or after it, is bookkeeping only
// (cudaFreeAsync would fail, and the error would surface at an unrelated later allocation).
struct CaptureTracking {
  std::mutex mutex;
  int active = 0;                                   // captures in progress, all devices
  std::unordered_set<const void*> made_in_capture;  // allocated while capturing
  std::vector<RetainedBlock> retained;              // freed while capturing, not graph memory
  std::unordered_set<const void*> abandoned;        // made in a broken capture, still alive
};
CaptureTracking& tracking() {
  static auto* state = new CaptureTracking();  // leaked: frees run from static destructors
  return *state;
}
std::atomic<int> g_captures{0};
std::atomic<size_t> g_abandoned{0};  // tracking().abandoned.size(), read without the lock

// Active or invalidated (by an error during the capture); None where it cannot be read.
cudaStreamCaptureStatus capture_status(Device device) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  try {
    if (cudaStreamIsCapturing(stream(device), &status) != cudaSuccess) {
      cudaGetLastError();
      return cudaStreamCaptureStatusNone;
    }
  } catch (...) {
    return cudaStreamCaptureStatusNone;
  }
  return status;
}
bool stream_is_capturing(Device device) noexcept {
  return capture_status(device) != cudaStreamCaptureStatusNone;
}

// Whether the capture bookkeeping takes this free over: a block the graph did not allocate is
// retained for it, and graph memory of a broken capture is dropped (only counted).
bool free_taken_by_capture(void* pointer, size_t nbytes, Device device) {
  const cudaStreamCaptureStatus status =
      g_captures.load() > 0 ? capture_status(device) : cudaStreamCaptureStatusNone;
  bool dropped = false;
  {
    std::lock_guard lock(tracking().mutex);
    if (tracking().abandoned.erase(pointer) == 1) {
      g_abandoned.store(tracking().abandoned.size());
      dropped = true;
    } else if (status == cudaStreamCaptureStatusNone) {
      return false;
    } else if (tracking().made_in_capture.erase(pointer) == 0) {
      tracking().retained.push_back({pointer, nbytes, device});  // freed by the graph
      return true;
    } else {
      dropped = status == cudaStreamCaptureStatusInvalidated;
    }
  }
  if (dropped) g_allocated.fetch_sub(block_size(nbytes));
  return dropped;
}

// ---- Errors from frees
// deallocate() runs from destructors and must not throw. A failed free is a real error (a
// corrupted pointer, a sticky launch failure), so it is remembered and thrown by the next
// allocation or synchronisation; errors while the runtime unloads at process exit are not.
std::mutex& error_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::string& deferred_error() {
  static auto* text = new std::string();
  return *text;
}
void remember_free_failure(Device device, const std::string& what) {
  std::lock_guard lock(error_mutex());
  if (deferred_error().empty()) {
    deferred_error() =
        fmt::format("CUDA error while freeing device memory on {}: {}", device.to_string(), what);
  }
}
void remember_free_error(cudaError_t status, Device device, const char* call) {
  cudaGetLastError();
  if (status == cudaErrorCudartUnloading || status == cudaErrorContextIsDestroyed) return;
  remember_free_failure(device, fmt::format("{} failed: {} ({})", call, cudaGetErrorString(status),
                                            cudaGetErrorName(status)));
}

}  // namespace

void throw_deferred_allocator_error() {
  std::string text;
  {
    std::lock_guard lock(error_mutex());
    text.swap(deferred_error());
  }
  if (!text.empty()) throw Error(text);
}

void begin_capture_tracking() {
  std::lock_guard lock(tracking().mutex);
  ++tracking().active;
  g_captures.store(tracking().active);
}

std::vector<RetainedBlock> end_capture_tracking(bool broken) {
  std::lock_guard lock(tracking().mutex);
  --tracking().active;
  g_captures.store(tracking().active);
  std::vector<RetainedBlock> out;
  if (tracking().active == 0) {
    if (broken) {
      tracking().abandoned.merge(tracking().made_in_capture);
      g_abandoned.store(tracking().abandoned.size());
    }
    tracking().made_in_capture.clear();
    out.swap(tracking().retained);
  }
  return out;
}

void free_retained(const std::vector<RetainedBlock>& blocks) {
  for (const RetainedBlock& block : blocks) {
    caching_allocator().deallocate(block.pointer, block.nbytes, block.device);
  }
}

void* CudaCachingAllocator::allocate(size_t nbytes, Device device) {
  throw_deferred_allocator_error();
  require_device(device);
  configure_pool(device);
  const size_t rounded = block_size(nbytes);
  void* pointer = nullptr;
  const cudaError_t status = cudaMallocAsync(&pointer, rounded, stream(device));
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) cudaGetLastError();
    throw Error(fmt::format(
        "CUDA out of memory on {}: tried to allocate {} bytes ({:.1f} MiB); {:.1f} MiB free of "
        "{:.1f} MiB; strand holds {:.1f} MiB in tensors",
        device.to_string(), nbytes, nbytes / 1048576.0, free_bytes / 1048576.0,
        total_bytes / 1048576.0, g_allocated.load() / 1048576.0));
  }
  STRAND_CUDA_CHECK(status);
  if (g_captures.load() > 0 && stream_is_capturing(device)) {
    std::lock_guard lock(tracking().mutex);
    tracking().made_in_capture.insert(pointer);
  } else if (g_abandoned.load() > 0) {  // the address is real memory now, not a broken graph's
    std::lock_guard lock(tracking().mutex);
    if (tracking().abandoned.erase(pointer) == 1) g_abandoned.store(tracking().abandoned.size());
  }
  const size_t now = g_allocated.fetch_add(rounded) + rounded;
  size_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  return pointer;
}

void CudaCachingAllocator::deallocate(void* pointer, size_t nbytes, Device device) {
  if (pointer == nullptr) return;
  if ((g_captures.load() > 0 || g_abandoned.load() > 0) &&
      free_taken_by_capture(pointer, nbytes, device)) {
    return;
  }
  g_allocated.fetch_sub(block_size(nbytes));
  // Never throws (runs from destructors); see remember_free_error. The free is queued on the
  // block's device; a tensor dying on another device's watch leaves the caller's device as it
  // was (DeviceSwitch restores it).
  CudaDeviceRuntime runtime;
  try {
    const DeviceSwitch<CudaDeviceRuntime> on_device(runtime, device.index);
    if (const cudaError_t freed = cudaFreeAsync(pointer, stream(device)); freed != cudaSuccess) {
      remember_free_error(freed, device, "cudaFreeAsync");
    }
  } catch (const std::exception& error) {
    // cudaGetDevice/cudaSetDevice failed (the error names the call and the status); at process
    // exit the runtime may be unloading, which is not an error of the program.
    const std::string what = error.what();
    if (what.find("cudaErrorCudartUnloading") == std::string::npos &&
        what.find("cudaErrorContextIsDestroyed") == std::string::npos) {
      remember_free_failure(device, what);
    }
  }
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

void* pinned_allocate(size_t nbytes, Device device) {
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
  // cudaHostAlloc runs in the current device's context: `device`'s, and not GPU 0's (the
  // default of a thread that never chose one), with the caller's device restored after.
  const DeviceGuard on_device(device);
  void* pointer = nullptr;
  // Portable: the block is page-locked for every context, whichever device allocated it.
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

Tensor pinned_empty(const Shape& shape, DType dtype, Device device) {
  const size_t nbytes = static_cast<size_t>(numel(shape)) * dtype_size(dtype);
  void* pointer = pinned_allocate(nbytes, device);
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
