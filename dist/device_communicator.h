// Communicators for device tensors, provided by a backend module: the CUDA module registers
// NCCL's when it is loaded (dist/cuda/nccl_communicator.cpp), so dist/ itself builds and runs
// without NCCL or CUDA.
#pragma once

#include <functional>
#include <memory>

#include "core/device.h"
#include "dist/communicator.h"

namespace strand::dist {

/// Builds the communicator of one rank on `device`, bootstrapped over the host communicator.
using DeviceCommunicatorFactory = std::function<std::shared_ptr<Communicator>(
    std::shared_ptr<Communicator> bootstrap, Device device, const CommunicatorOptions& options)>;

/// Sets the factory for tensors on `type` (a backend module calls it when it is loaded).
void register_device_communicator(DeviceType type, DeviceCommunicatorFactory factory);

/// The communicator of one rank whose tensors live on `device` (a CUDA device: NCCL's). Loads
/// the device's backend module; throws strand::Error naming what is missing when the module
/// cannot be loaded or was built without a communicator (NCCL).
std::shared_ptr<Communicator> make_device_communicator(std::shared_ptr<Communicator> bootstrap,
                                                       Device device,
                                                       const CommunicatorOptions& options);

/// The GPU a rank drives: CUDA ordinal `requested.index + local_rank` (one GPU per process on
/// each host, counted from the configured device). Throws naming the device count when the host
/// has too few GPUs.
Device device_for_rank(Device requested, int local_rank);

}  // namespace strand::dist
