// Backends as modules: the CUDA backend is a shared library, libstrand_cuda.so, opened with
// dlopen the first time a CUDA device is asked for (an allocation, a dispatch, the CLI's device
// check), as ggml loads its backends (GGML_BACKEND_DL). A program built with CUDA therefore
// starts and runs on a host without the CUDA libraries, and pays for them only when it uses a
// GPU. On load the module's kernels register themselves (STRAND_REGISTER_KERNELS, as on the
// CPU), and its entry point registers the device allocator and the runtime (tensor/cuda_runtime.h).
//
// Where the module is looked for: the file named by STRAND_CUDA_MODULE when that is set, else
// libstrand_cuda.so in the folder of libstrand itself (the build tree, an install's lib/, the GPU
// bundle's lib/). A failure names every path tried and what the dynamic loader reported (for a
// module whose CUDA libraries are missing: "libcudart.so.13: cannot open shared object file").
#pragma once

#include <string>

#include "core/device.h"

namespace strand {

/// Loads the backend of `type` on the first call (CUDA: libstrand_cuda.so), once per process;
/// the CPU backend is built in. Throws strand::Error naming the module paths tried and the
/// loader's error when the module cannot be loaded, and again on every later call.
void ensure_backend(DeviceType type);

/// As ensure_backend(), without throwing: empty when the backend is loaded, else why not.
std::string backend_load_error(DeviceType type);

/// Whether this build of strand has a loadable module for `type` (true for the CPU; for CUDA,
/// whether it was configured with STRAND_CUDA=ON). Says nothing about the host.
bool backend_built(DeviceType type);

/// The ABI the loader and a module must agree on: a module's entry point is given the loader's
/// number and registers nothing unless it is its own. Bumped when the interfaces a module
/// implements (CudaRuntime, Allocator, the kernel signatures) change.
inline constexpr int kBackendModuleAbi = 2;

}  // namespace strand
