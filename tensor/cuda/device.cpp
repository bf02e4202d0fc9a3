// Device discovery, error reporting, per-device streams and library handles.
#include "tensor/cuda/device.h"

#include <cuda.h>

#include <array>
#include <atomic>
#include <mutex>

#include "core/dtype.h"
#include "core/error.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/allocator.h"
#include "tensor/precision.h"

namespace strand::cuda {

constexpr int kMaxDevices = 16;

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear a sticky launch error so the next call starts clean
  throw Error(fmt::format("CUDA error: {} failed at {}:{}: {} ({})", call, file, line,
                          cudaGetErrorString(status), cudaGetErrorName(status)));
}

void throw_library_error(const char* library, int status, const std::string& text, const char* call,
                         const char* file, int line) {
  throw Error(fmt::format("{} error: {} failed at {}:{}: {} (status {})", library, call, file, line,
                          text, status));
}

void throw_dtype_error(const char* op, int dtype) {
  throw Error(fmt::format("{} (CUDA): expected float32 or float64, got {}", op,
                          dtype_name(static_cast<DType>(dtype))));
}

namespace {

struct DeviceCount {
  int count = 0;
  std::string reason;
};

const DeviceCount& probe() {
  static const DeviceCount result = [] {
    DeviceCount found;
    const cudaError_t status = cudaGetDeviceCount(&found.count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      found.count = 0;
      found.reason = fmt::format("cudaGetDeviceCount: {}", cudaGetErrorString(status));
    } else if (found.count == 0) {
      found.reason = "cudaGetDeviceCount: no devices";
    }
    return found;
  }();
  return result;
}

}  // namespace

bool cuda_available() { return probe().count > 0; }
int device_count() { return probe().count; }
std::string unavailability_reason() { return probe().reason; }

void check_device(Device device) {
  STRAND_CHECK(device.is_cuda(), "{} is not a CUDA device", device.to_string());
  const DeviceCount& found = probe();
  STRAND_CHECK(found.count > 0, "CUDA requested but no CUDA device is available ({})",
               found.reason);
  STRAND_CHECK(device.index >= 0 && device.index < found.count && device.index < kMaxDevices,
               "CUDA device {} requested but only {} CUDA device(s) are available",
               device.to_string(), found.count);
}

void require_device(Device device) {
  check_device(device);
  // Ask the runtime rather than caching the answer: NCCL, cuDNN, user code and the allocator's
  // destructor path call cudaSetDevice themselves, and a cached index would then be stale.
  // cudaGetDevice reads the runtime's thread-local state and costs no driver call.
  int current = -1;
  STRAND_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device.index) STRAND_CUDA_CHECK(cudaSetDevice(device.index));
}

namespace {
// cuDevicePrimaryCtxGetState through the runtime's driver entry points (strand links the
// runtime only, not libcuda); null when the driver does not offer it.
using PrimaryContextState = CUresult (*)(CUdevice, unsigned int*, int*);
using DeviceFromOrdinal = CUresult (*)(CUdevice*, int);
struct DriverCalls {
  PrimaryContextState primary_context_state = nullptr;
  DeviceFromOrdinal device_from_ordinal = nullptr;
};
const DriverCalls& driver_calls() {
  static const DriverCalls calls = [] {
    DriverCalls found;
    void* state = nullptr;
    void* device = nullptr;
    cudaDriverEntryPointQueryResult state_status{}, device_status{};
    if (cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxGetState", &state, 12000,
                                         cudaEnableDefault, &state_status) == cudaSuccess &&
        cudaGetDriverEntryPointByVersion("cuDeviceGet", &device, 12000, cudaEnableDefault,
                                         &device_status) == cudaSuccess &&
        state_status == cudaDriverEntryPointSuccess &&
        device_status == cudaDriverEntryPointSuccess) {
      found.primary_context_state = reinterpret_cast<PrimaryContextState>(state);
      found.device_from_ordinal = reinterpret_cast<DeviceFromOrdinal>(device);
    } else {
      cudaGetLastError();
    }
    return found;
  }();
  return calls;
}
}  // namespace

bool primary_context_active(int index) {
  const DriverCalls& calls = driver_calls();
  if (calls.primary_context_state == nullptr) return true;  // cannot tell: assume in use
  CUdevice device = 0;
  if (calls.device_from_ordinal(&device, index) != CUDA_SUCCESS) return true;
  unsigned int flags = 0;
  int active = 0;
  if (calls.primary_context_state(device, &flags, &active) != CUDA_SUCCESS) return true;
  return active != 0;
}

int CudaDeviceRuntime::current_device() {
  int current = -1;
  STRAND_CUDA_CHECK(cudaGetDevice(&current));
  return current;
}

void CudaDeviceRuntime::set_device(int device) { STRAND_CUDA_CHECK(cudaSetDevice(device)); }

bool CudaDeviceRuntime::context_active(int device) { return primary_context_active(device); }

void CudaDeviceRuntime::restore_device(int device) noexcept {
  if (cudaSetDevice(device) != cudaSuccess) cudaGetLastError();
}

namespace {
int checked_index(Device device) {
  check_device(device);
  return device.index;
}
}  // namespace

DeviceGuard::DeviceGuard(Device device) : switch_(runtime_, checked_index(device)) {}

DeviceProperties device_properties(int index) {
  require_device(Device::cuda(index));
  cudaDeviceProp prop{};
  STRAND_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  DeviceProperties out;
  out.name = prop.name;
  out.major = prop.major;
  out.minor = prop.minor;
  out.multiprocessors = prop.multiProcessorCount;
  out.total_memory = prop.totalGlobalMem;
  out.l2_cache_bytes = static_cast<size_t>(prop.l2CacheSize);
  out.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  return out;
}

namespace {
std::atomic<size_t> g_host_syncs{0};
}  // namespace

size_t host_sync_count() { return g_host_syncs.load(); }
void count_host_sync() { g_host_syncs.fetch_add(1); }

void synchronize(Device device) {
  require_device(device);
  count_host_sync();
  STRAND_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
  throw_deferred_allocator_error();
}

std::pair<size_t, size_t> memory_info(Device device) {
  require_device(device);
  size_t free_bytes = 0, total_bytes = 0;
  STRAND_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {free_bytes, total_bytes};
}

namespace {
std::mutex& handle_mutex() {
  static std::mutex mutex;
  return mutex;
}
}  // namespace

cudaStream_t stream(Device device) {
  static std::array<cudaStream_t, kMaxDevices> streams{};
  require_device(device);
  std::lock_guard lock(handle_mutex());
  cudaStream_t& s = streams[static_cast<size_t>(device.index)];
  if (s == nullptr) STRAND_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

bool capturing(Device device) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  STRAND_CUDA_CHECK(cudaStreamIsCapturing(stream(device), &status));
  return status != cudaStreamCaptureStatusNone;
}

cublasHandle_t cublas(Device device) {
  static std::array<cublasHandle_t, kMaxDevices> handles{};
  cudaStream_t s = stream(device);
  std::lock_guard lock(handle_mutex());
  cublasHandle_t& h = handles[static_cast<size_t>(device.index)];
  if (h == nullptr) STRAND_CUBLAS_CHECK(cublasCreate(&h));
  // Exact FP32 by default (results follow the CPU oracles); TF32 tensor cores when opted in
  // (tensor/precision.h). Both calls only set host-side state of the handle.
  const bool tf32 = float32_precision() == Float32Precision::kTf32;
  STRAND_CUBLAS_CHECK(
      cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  STRAND_CUBLAS_CHECK(cublasSetStream(h, s));
  return h;
}

}  // namespace strand::cuda
