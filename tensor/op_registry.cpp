// Registry bookkeeping and the one-time registration of the built-in backends.
#include "tensor/op_registry.h"

#include <mutex>

namespace strand {

// The primitive ops' CPU kernels (tensor/cpu/primitive_kernels.cpp). A backend module
// registers its own when it is loaded (tensor/backend.h).
void register_cpu_kernels();

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
  std::call_once(once, [] { register_cpu_kernels(); });
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
