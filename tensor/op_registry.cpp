// Registry bookkeeping and the one-time registration of the built-in backends.
#include "tensor/op_registry.h"

#include <mutex>

namespace strand {

// The primitive ops' kernels of each compiled backend (tensor/cpu/primitive_kernels.cpp,
// tensor/cuda/register_kernels.cpp).
void register_cpu_kernels();
#ifdef STRAND_WITH_CUDA
void register_cuda_kernels();
#endif

namespace {
std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<RegisteredKernel>& kernel_list() {
  static std::vector<RegisteredKernel> list;
  return list;
}
}  // namespace

void ensure_builtin_kernels_registered() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_cpu_kernels();
#ifdef STRAND_WITH_CUDA
    register_cuda_kernels();
#endif
  });
}

void record_registered_kernel(const char* op_name, DeviceType type) {
  std::lock_guard lock(registry_mutex());
  kernel_list().push_back({op_name, type});
}

std::vector<RegisteredKernel> registered_kernels() {
  ensure_builtin_kernels_registered();
  std::lock_guard lock(registry_mutex());
  return kernel_list();
}

}  // namespace strand
