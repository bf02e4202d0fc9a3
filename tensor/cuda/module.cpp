// The CUDA backend module's entry point (libstrand_cuda.so; tensor/backend.h loads it). The
// kernels of every op family and of the primitive ops register themselves when the module is
// loaded (STRAND_REGISTER_KERNELS); the entry point then registers what makes CUDA devices
// usable: the caching device allocator and the runtime that code outside the module calls
// (tensor/cuda_runtime.h). Nothing here touches the CUDA runtime, so the module loads on a host
// without a GPU; the first CUDA allocation then throws "CUDA requested but no CUDA device is
// available (...)".
#include <memory>

#include "tensor/allocator.h"
#include "tensor/backend.h"
#include "tensor/cuda/allocator.h"
#include "tensor/cuda/conv_engine.h"
#include "tensor/cuda/device.h"
#include "tensor/cuda/graph.h"
#include "tensor/cuda_runtime.h"

namespace strand::cuda {
namespace {

// CudaRuntime over this module's functions.
class ModuleRuntime final : public CudaRuntime {
 public:
  bool available() override { return cuda_available(); }
  std::string unavailability_reason() override { return cuda::unavailability_reason(); }
  int device_count() override { return cuda::device_count(); }
  void* pinned_allocate(size_t nbytes, Device device) override {
    return cuda::pinned_allocate(nbytes, device);
  }
  void pinned_release(void* pointer, size_t nbytes) override {
    cuda::pinned_release(pointer, nbytes);
  }
  void synchronize(Device device) override { cuda::synchronize(device); }
  std::unique_ptr<CapturedGraph> make_graph(Device device) override {
    return std::make_unique<CudaGraph>(device);
  }
  DeviceMemory memory(Device device) override {
    const auto [free_bytes, total_bytes] = cuda::memory_info(device);
    return {free_bytes, total_bytes};
  }
  void plan_conv_batch_sizes(const std::vector<int64_t>& sizes, bool backward) override {
    cuda::plan_batch_sizes(sizes, backward);
  }
  ConvPlanTable conv_plans(Device device) override { return cuda::export_conv_plans(device); }
  std::string adopt_conv_plans(const ConvPlanTable& plans, Device device) override {
    return cuda::adopt_conv_plans(plans, device);
  }
};

}  // namespace
}  // namespace strand::cuda

/// The module's entry point: registers the allocator and the runtime when `loader_abi` is the
/// module's own ABI, and returns that ABI (the loader refuses a module of another ABI).
extern "C" __attribute__((visibility("default"))) int strand_cuda_module_init(int loader_abi) {
  using namespace strand;
  if (loader_abi != kBackendModuleAbi) return kBackendModuleAbi;
  static cuda::ModuleRuntime* runtime = new cuda::ModuleRuntime();  // used until exit
  set_allocator(DeviceType::kCUDA, &cuda::caching_allocator());
  register_cuda_runtime(runtime);
  return kBackendModuleAbi;
}
