// Memory for the CUDA backend.
//
// CudaCachingAllocator: the device allocator registered for DeviceType::kCUDA. Stream-ordered
// (cudaMallocAsync / cudaFreeAsync on strand's stream) from the device's default memory pool
// with its release threshold raised to "never", so freed blocks stay cached in the pool and
// are reused without a cudaMalloc or a device synchronisation. Works under CUDA graph capture
// (allocations become graph memory nodes; frees of older blocks are deferred to the graph).
// Requests round up to 512 bytes; STRAND_CUDA_EXACT_ALLOC=1 turns that off for
// compute-sanitizer memcheck, which can then see overruns of a tensor's last bytes. The first
// allocation without a usable device throws "CUDA requested but no CUDA device is available
// (cudaGetDeviceCount: ...)"; out of memory names the request and the free/total bytes.
//
// Pinned host memory: pinned_allocate/pinned_release (cudaHostAlloc, cached by size) back
// the data loader's batches (a data::BatchAllocator of the two) and pinned_empty() tensors, so
// host-to-device copies of batches run asynchronously at full PCIe/NVLink bandwidth. Both take
// the device the memory serves and leave the caller's current device alone.
#pragma once

#include <cstddef>
#include <vector>

#include "tensor/allocator.h"
#include "tensor/tensor.h"

namespace strand::cuda {

class CudaCachingAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device device) override;
  void deallocate(void* pointer, size_t nbytes, Device device) override;
};

/// The process-wide device allocator (registered with set_allocator at start-up).
CudaCachingAllocator& caching_allocator();

/// Throws the first error a free reported since the last call (frees run in destructors and
/// cannot throw themselves); allocate() and synchronize() call it.
void throw_deferred_allocator_error();

/// A device block freed during a graph capture that the graph did not allocate.
struct RetainedBlock {
  void* pointer;
  size_t nbytes;
  Device device;
};
/// Graph capture bookkeeping (CudaGraph::capture calls these): blocks allocated before the
/// capture and freed during it are retained, not freed, because the captured kernels keep
/// using them on every replay; end_capture_tracking() hands them to the graph, which passes
/// them to free_retained() when it is destroyed. A capture that failed (`broken`: an error
/// invalidated it, or its work threw) leaves no graph: the blocks it allocated were never real
/// memory, so their later frees are dropped instead of failing.
void begin_capture_tracking();
std::vector<RetainedBlock> end_capture_tracking(bool broken);
void free_retained(const std::vector<RetainedBlock>& blocks);

/// Bytes currently handed out by the device allocator, and the peak since start (per
/// process, all devices).
size_t allocated_bytes();
size_t peak_allocated_bytes();
/// Returns cached, unused pool memory of `device` to the driver.
void release_cached_memory(Device device = Device::cuda());

/// Page-locked host memory of at least `nbytes` for copies to and from `device` (reuses
/// released blocks of the same size). A new block is allocated with `device` current, and the
/// calling thread's current device is left as it was (DeviceGuard): a rank driving GPU k, or
/// a loader thread working for it, never opens a context on GPU 0. A data loader's allocator:
/// {[device](size_t n) { return pinned_allocate(n, device); }, pinned_release}.
void* pinned_allocate(size_t nbytes, Device device);
void pinned_release(void* pointer, size_t nbytes);
/// A CPU tensor in pinned memory for copies to and from `device` (see pinned_allocate).
Tensor pinned_empty(const Shape& shape, DType dtype, Device device);
/// True when `pointer` is page-locked host memory known to CUDA.
bool is_pinned(const void* pointer);

}  // namespace strand::cuda
