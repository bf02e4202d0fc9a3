// The op registry: every op is a type with a name and a kernel signature; each device type
// may register one kernel for it. Dispatch looks the kernel up by the tensor's device and
// throws, naming the op and the device, when there is none. A user's own op (e.g. in a
// header-only extension) is just another such type: nothing here lists ops by hand.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "tensor/backend.h"

namespace strand {

/// Registers the CPU kernels of the primitive ops (tensor/primitive_ops.h), once. Dispatch
/// calls it, so users never need to; the op families in ops/ register themselves
/// (STRAND_REGISTER_KERNELS below), and so does a backend module when it is loaded.
void ensure_builtin_kernels_registered();

/// Remembers (op name, device) pairs as kernels register, for listings and tests.
void record_registered_kernel(const char* op_name, DeviceType type);
/// One (op, device type) pair with a registered kernel.
struct RegisteredKernel {
  std::string op_name;     ///< Op::kName
  DeviceType device_type;  ///< the backend
};
std::vector<RegisteredKernel> registered_kernels();

/// The kernel table of one op. `Op` provides `static constexpr const char* kName` and
/// `using Fn = <function type>`.
template <typename Op>
class OpKernels {
 public:
  /// The kernel's function type.
  using Fn = typename Op::Fn;

  /// Sets (or replaces) the kernel of this op for a device type.
  static void register_kernel(DeviceType type, Fn* kernel) {
    table()[static_cast<int>(type)] = kernel;
    record_registered_kernel(Op::kName, type);
  }
  /// Whether a kernel is registered for `type` (loads no backend module).
  static bool has_kernel(DeviceType type) {
    ensure_builtin_kernels_registered();
    return table()[static_cast<int>(type)] != nullptr;
  }
  /// The kernel for `device`; throws naming the op and device when there is none. The first
  /// dispatch to a device type without a built-in backend loads its module (tensor/backend.h).
  static Fn* kernel(Device device) {
    ensure_builtin_kernels_registered();
    Fn* found = table()[static_cast<int>(device.type)];
    if (found == nullptr && !device.is_cpu()) {
      ensure_backend(device.type);
      found = table()[static_cast<int>(device.type)];
    }
    STRAND_CHECK(found != nullptr, "op '{}' has no kernel for device {}", Op::kName,
                 device.to_string());
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

/// Registers kernels at static initialisation, from the file that defines them:
///
///   STRAND_REGISTER_KERNELS(elementwise_cpu) {
///     OpKernels<UnaryOp>::register_kernel(DeviceType::kCPU, unary_cpu);
///   }
///
/// Each ops/ file registers its family this way, so adding a family edits no central list. A
/// static libstrand links an ops/ file (and so its registrar) with the functions it defines;
/// code outside the file reaches an op through those functions, never through dispatch<> alone.
/// The CUDA adapters (ops/cuda/<family>.cpp) register the same way, when the CUDA module is
/// loaded: a shared library runs the registrars of all its files.
#define STRAND_REGISTER_KERNELS(name)                                     \
  static void strand_register_##name##_kernels();                         \
  [[maybe_unused]] static const bool strand_##name##_kernels_registered = \
      (strand_register_##name##_kernels(), true);                         \
  static void strand_register_##name##_kernels()

/// Runs op `Op`'s kernel for `device` with `args`.
template <typename Op, typename... Args>
decltype(auto) dispatch(Device device, Args&&... args) {
  return OpKernels<Op>::kernel(device)(std::forward<Args>(args)...);
}

}  // namespace strand
