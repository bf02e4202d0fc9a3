// The op registry: every op is a type with a name and a kernel signature; each device type
// may register one kernel for it. Dispatch looks the kernel up by the tensor's device and
// throws, naming the op and the device, when there is none. A user's own op (e.g. in a
// header-only extension) is just another such type: nothing here lists ops by hand.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/error.h"

namespace strand {

/// Registers the built-in kernels of every compiled backend, once. Dispatch calls it, so
/// users never need to.
void ensure_builtin_kernels_registered();

/// Remembers (op name, device) pairs as kernels register, for listings and tests.
void record_registered_kernel(const char* op_name, DeviceType type);
struct RegisteredKernel {
  std::string op_name;
  DeviceType device_type;
};
std::vector<RegisteredKernel> registered_kernels();

/// The kernel table of one op. `Op` provides `static constexpr const char* kName` and
/// `using Fn = <function type>`.
template <typename Op>
class OpKernels {
 public:
  using Fn = typename Op::Fn;

  static void register_kernel(DeviceType type, Fn* kernel) {
    table()[static_cast<int>(type)] = kernel;
    record_registered_kernel(Op::kName, type);
  }
  static bool has_kernel(DeviceType type) {
    ensure_builtin_kernels_registered();
    return table()[static_cast<int>(type)] != nullptr;
  }
  static Fn* kernel(Device device) {
    ensure_builtin_kernels_registered();
    Fn* found = table()[static_cast<int>(device.type)];
    STRAND_CHECK(found != nullptr, "op '{}' has no kernel for device {}{}", Op::kName,
                 device.to_string(),
                 device.is_cuda() ? " (this build of strand has no CUDA backend for it)" : "");
    return found;
  }

 private:
  static std::array<Fn*, kNumDeviceTypes>& table() {
    static std::array<Fn*, kNumDeviceTypes> kernels{};
    return kernels;
  }
};

/// Declares an op type: STRAND_DECLARE_OP(MyOp, "my_op", void(const Tensor&, Tensor&));
#define STRAND_DECLARE_OP(Type, name, ...)     \
  struct Type {                                \
    static constexpr const char* kName = name; \
    using Fn = __VA_ARGS__;                    \
  }

/// Runs op `Op`'s kernel for `device` with `args`.
template <typename Op, typename... Args>
decltype(auto) dispatch(Device device, Args&&... args) {
  return OpKernels<Op>::kernel(device)(std::forward<Args>(args)...);
}

}  // namespace strand
