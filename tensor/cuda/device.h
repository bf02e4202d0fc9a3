// The CUDA devices as strand sees them: whether one is usable, their properties, and the
// stream every strand kernel and copy of a device is ordered on. Plain C++ (no CUDA headers), so
// that the module's C++20 files and the tests linking the module include it; code outside the
// module asks through CudaRuntime (tensor/cuda_runtime.h) instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device.h"
#include "tensor/cuda/device_switch.h"

namespace strand::cuda {

/// True when the CUDA runtime sees at least one device (never throws).
bool cuda_available();
/// Number of usable devices (0 when the driver or device is missing; never throws).
int device_count();
/// Why no device is usable: "cudaGetDeviceCount: <error text>" or "no devices"; empty when
/// one is.
std::string unavailability_reason();
/// Throws strand::Error ("CUDA requested but no CUDA device is available (...)") unless
/// `device` names a usable CUDA device.
void check_device(Device device);
/// check_device(), then makes `device` current for the calling thread (strand's ops do this
/// before they queue work on a device's stream).
void require_device(Device device);

/// Whether the primary context of CUDA device `index` is initialised in this process (the
/// driver's cuDevicePrimaryCtxGetState; true when the driver cannot tell). Never throws.
bool primary_context_active(int index);

/// The CUDA runtime's device calls, as DeviceSwitch (tensor/cuda/device_switch.h) uses them.
struct CudaDeviceRuntime {
  int current_device();
  void set_device(int device);
  bool context_active(int device);
  void restore_device(int device) noexcept;
};

/// Makes `device` current for its scope, then gives the calling thread its own device back
/// (unless that device's context was never initialised: see device_switch.h). Helpers that
/// run on a device they are given, such as the pinned host allocator, use it so that they
/// never change their caller's current device.
class DeviceGuard {
 public:
  /// Throws as check_device() does.
  explicit DeviceGuard(Device device);

 private:
  CudaDeviceRuntime runtime_;
  DeviceSwitch<CudaDeviceRuntime> switch_;
};

struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;  // compute capability
  int multiprocessors = 0;
  size_t total_memory = 0;
  size_t l2_cache_bytes = 0;
  size_t shared_memory_per_block_optin = 0;
};
DeviceProperties device_properties(int index = 0);

/// Blocks until every queued kernel and copy of `device` has finished.
void synchronize(Device device = Device::cuda());

/// Host waits on the device so far (synchronize(), device-to-host copies such as item(),
/// waits for a StartHostReadOp copy): tests assert that a training step needs at most one.
size_t host_sync_count();
/// Counts one host wait (strand's own waiting points call it).
void count_host_sync();

/// (free, total) bytes on `device` (cudaMemGetInfo).
std::pair<size_t, size_t> memory_info(Device device = Device::cuda());

}  // namespace strand::cuda
