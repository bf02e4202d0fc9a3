// Registers every CUDA kernel with the op registry, and the caching device allocator for
// DeviceType::kCUDA. The allocator is registered at static-initialisation time (this object
// file is always linked: op_registry.cpp calls register_cuda_kernels), because creating a CUDA
// tensor allocates before any op dispatch has run. Nothing here touches the CUDA runtime, so
// a build with the backend starts fine on a machine without a GPU; the first CUDA allocation
// then throws "CUDA requested but no CUDA device is available (...)".
#include "tensor/allocator.h"
#include "tensor/cuda/adapter_util.h"
#include "tensor/cuda/allocator.h"
#include "tensor/cuda/multi_tensor.h"

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
  cuda::register_cuda_compute_kernels();
  cuda::register_cuda_conv_kernels();
  cuda::register_cuda_multi_tensor_kernels();
}

}  // namespace strand
