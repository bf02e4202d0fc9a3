// Registers the CUDA kernels of the primitive ops (the op families in ops/ register their own),
// and the caching device allocator for
// DeviceType::kCUDA. The allocator is registered at static-initialisation time (this object
// file is always linked: op_registry.cpp calls register_cuda_kernels), because creating a CUDA
// tensor allocates before any op dispatch has run. Nothing here touches the CUDA runtime, so
// a build with the backend starts fine on a machine without a GPU; the first CUDA allocation
// then throws "CUDA requested but no CUDA device is available (...)".
#include "tensor/allocator.h"
#include "tensor/cuda/adapter_util.h"
#include "tensor/cuda/allocator.h"

namespace strand {
namespace {
const bool kCudaAllocatorRegistered = [] {
  set_allocator(DeviceType::kCUDA, &cuda::caching_allocator());
  return true;
}();
}  // namespace

void register_cuda_kernels() {
  (void)kCudaAllocatorRegistered;
  set_allocator(DeviceType::kCUDA, &cuda::caching_allocator());
  cuda::register_cuda_memory_kernels();
}

}  // namespace strand
