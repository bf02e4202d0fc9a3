// The registered CUDA runtime and the checks built on it (cuda_runtime.h).
#include "tensor/cuda_runtime.h"

#include <atomic>

#include "core/error.h"
#include "tensor/backend.h"

namespace strand {
namespace {

std::atomic<CudaRuntime*>& registered() {
  static std::atomic<CudaRuntime*> runtime{nullptr};
  return runtime;
}

}  // namespace

void register_cuda_runtime(CudaRuntime* runtime) { registered().store(runtime); }

CudaRuntime& cuda_runtime() {
  ensure_backend(DeviceType::kCUDA);
  CudaRuntime* runtime = registered().load();
  STRAND_CHECK(runtime != nullptr, "the CUDA backend module loaded but registered no runtime");
  return *runtime;
}

std::string cuda_unusable_reason() {
  std::string error = backend_load_error(DeviceType::kCUDA);
  if (!error.empty()) return error;
  CudaRuntime* runtime = registered().load();
  if (runtime == nullptr) return "the CUDA backend module loaded but registered no runtime";
  return runtime->available() ? "" : runtime->unavailability_reason();
}

bool cuda_usable() { return cuda_unusable_reason().empty(); }

}  // namespace strand
