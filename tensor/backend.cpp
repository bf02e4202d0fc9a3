// The backend module loader (backend.h).
#include "tensor/backend.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>

#include "core/error.h"

namespace strand {
namespace {

// The module's one entry point: given the loader's ABI, it registers the allocator and the
// runtime of its device type when the ABIs agree, and returns its own ABI.
using ModuleInit = int (*)(int loader_abi);
constexpr const char* kCudaModuleInit = "strand_cuda_module_init";

struct LoadState {
  std::once_flag once;
  std::string error;  // empty once loaded
};

LoadState& cuda_state() {
  static LoadState state;
  return state;
}

// The folder of the shared object (or program) this function is linked into: libstrand.so's.
std::string libstrand_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&libstrand_folder), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  // Resolved, so that an error names the file plainly (not ".../bin/../lib/...").
  std::string path = info.dli_fname;
  if (char* resolved = ::realpath(info.dli_fname, nullptr); resolved != nullptr) {
    path = resolved;
    std::free(resolved);
  }
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool file_exists(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0;
}

// Opens the module and calls its entry point; empty on success, else why it failed.
std::string load_module(const std::string& path) {
  // RTLD_NOW: a library or symbol the module lacks fails here, by name, not at the first call.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fmt::format(
        "{}; it needs the CUDA 13 runtime libraries (libcudart, libcublas, libcudnn, libnccl) "
        "where the dynamic loader looks (LD_LIBRARY_PATH, the system's library folders)",
        why != nullptr ? why : "dlopen failed");
  }
  // Never closed: kernels and allocators registered from it are used to the end of the process.
  auto init = reinterpret_cast<ModuleInit>(dlsym(handle, kCudaModuleInit));
  if (init == nullptr) {
    return fmt::format("it is not a strand CUDA module (no {} symbol)", kCudaModuleInit);
  }
  const int module_abi = init(kBackendModuleAbi);
  if (module_abi != kBackendModuleAbi) {
    return fmt::format(
        "it was built for backend ABI {} and this libstrand has ABI {} (a module of another "
        "strand build)",
        module_abi, kBackendModuleAbi);
  }
  return "";
}

std::string load_cuda_module() {
#ifndef STRAND_CUDA_MODULE_FILE
  return "this build of strand has no CUDA backend (configure with -DSTRAND_CUDA=ON on a "
         "machine with nvcc)";
#else
  const char* override_path = std::getenv("STRAND_CUDA_MODULE");
  const bool overridden = override_path != nullptr && *override_path != '\0';
  const std::string path =
      overridden ? override_path : libstrand_folder() + "/" + STRAND_CUDA_MODULE_FILE;
  const std::string origin = overridden ? " (the path STRAND_CUDA_MODULE names)" : "";
  if (!file_exists(path)) {
    return fmt::format(
        "the CUDA backend module is missing: no file {}{}; it is built beside libstrand by a "
        "build configured with -DSTRAND_CUDA=ON, and STRAND_CUDA_MODULE may name its path",
        path, origin);
  }
  const std::string failure = load_module(path);
  if (failure.empty()) return "";
  return fmt::format("the CUDA backend module {}{} could not be loaded: {}", path, origin, failure);
#endif
}

}  // namespace

std::string backend_load_error(DeviceType type) {
  if (type == DeviceType::kCPU) return "";
  LoadState& state = cuda_state();
  std::call_once(state.once, [&] { state.error = load_cuda_module(); });
  return state.error;
}

void ensure_backend(DeviceType type) {
  const std::string error = backend_load_error(type);
  if (!error.empty()) throw Error(error);
}

bool backend_built(DeviceType type) {
#ifdef STRAND_CUDA_MODULE_FILE
  (void)type;
  return true;
#else
  return type == DeviceType::kCPU;
#endif
}

}  // namespace strand
