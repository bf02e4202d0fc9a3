// The registry of device communicators (device_communicator.h).
#include "dist/device_communicator.h"

#include <algorithm>
#include <array>
#include <mutex>

#include "core/error.h"
#include "tensor/backend.h"
#include "tensor/cuda_runtime.h"

namespace strand::dist {
namespace {

struct Registry {
  std::mutex mutex;
  std::array<DeviceCommunicatorFactory, kNumDeviceTypes> factories;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

void register_device_communicator(DeviceType type, DeviceCommunicatorFactory factory) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.factories[static_cast<size_t>(type)] = std::move(factory);
}

std::shared_ptr<Communicator> make_device_communicator(std::shared_ptr<Communicator> bootstrap,
                                                       Device device,
                                                       const CommunicatorOptions& options) {
  ensure_backend(device.type);
  DeviceCommunicatorFactory factory;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    factory = r.factories[static_cast<size_t>(device.type)];
  }
  STRAND_CHECK(factory != nullptr,
               "data-parallel training on {} needs the NCCL backend: this strand's CUDA module was "
               "built without NCCL (configure with -DSTRAND_CUDA=ON where nccl.h and libnccl are "
               "found)",
               device.to_string());
  return factory(std::move(bootstrap), device, options);
}

Device device_for_rank(Device requested, int local_rank) {
  STRAND_CHECK(requested.is_cuda(), "device_for_rank: {} is not a CUDA device",
               requested.to_string());
  const int index = requested.index + local_rank;
  const int devices = cuda_runtime().device_count();
  STRAND_CHECK(index < devices,
               "local rank {} on {} needs GPU {} but this host has {}: start at most {} rank(s) "
               "per host",
               local_rank, requested.to_string(), index, devices,
               std::max(devices - requested.index, 0));
  return Device::cuda(index);
}

}  // namespace strand::dist
