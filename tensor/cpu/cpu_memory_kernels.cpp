// CPU kernels for fill and copy (with dtype conversion, any strides).
#include "core/dtype_dispatch.h"
#include "kernels/cpu/elementwise.h"
#include "tensor/cpu/cpu_kernel_registration.h"
#include "tensor/op_declarations.h"

namespace strand {
namespace {

void fill_cpu(Tensor& out, double value) {
  dispatch_any(out.dtype(), [&]<typename T>() {
    const T converted = static_cast<T>(value);
    T* data = out.data<T>();
    kernels::cpu::map_unary(static_cast<int>(out.dim()), out.shape().data(), data,
                            out.strides().data(), data, out.strides().data(),
                            [converted](T) { return converted; });
  });
}

void copy_cpu(Tensor& out, const Tensor& source) {
  STRAND_CHECK(source.device().is_cpu() && out.device().is_cpu(),
               "copy: CPU kernel cannot copy {} into {}", source.describe(), out.describe());
  dispatch_any(out.dtype(), [&]<typename Out>() {
    dispatch_any(source.dtype(), [&]<typename In>() {
      kernels::cpu::map_unary(static_cast<int>(out.dim()), out.shape().data(), source.data<In>(),
                              source.strides().data(), out.data<Out>(), out.strides().data(),
                              [](In value) { return static_cast<Out>(value); });
    });
  });
}

std::function<Tensor()> start_host_read_cpu(const Tensor& source) {
  Tensor copy = source.contiguous().clone();
  return [copy] { return copy; };
}

}  // namespace

void register_cpu_memory_kernels() {
  OpKernels<StartHostReadOp>::register_kernel(DeviceType::kCPU, start_host_read_cpu);
  OpKernels<FillOp>::register_kernel(DeviceType::kCPU, fill_cpu);
  OpKernels<CopyOp>::register_kernel(DeviceType::kCPU, copy_cpu);
}

}  // namespace strand
