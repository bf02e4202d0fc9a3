// The CUDA devices as strand sees them: whether one is usable, their properties, and the
// stream every strand kernel and copy of a device is ordered on. Plain C++ (no CUDA headers)
// so tests and programs can ask `cuda_available()` in any build that has the CUDA backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device.h"

namespace strand::cuda {

/// True when the CUDA runtime sees at least one device (never throws).
bool cuda_available();
/// Number of usable devices (0 when the driver or device is missing; never throws).
int device_count();
/// Why no device is usable: "cudaGetDeviceCount: <error text>" or "no devices"; empty when
/// one is.
std::string unavailability_reason();
/// Throws strand::Error ("CUDA requested but no CUDA device is available (...)") unless
/// `device` names a usable CUDA device; then makes it current for the calling thread.
void require_device(Device device);

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
