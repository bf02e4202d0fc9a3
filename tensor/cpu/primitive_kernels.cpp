// CPU kernels of the primitive ops: fill, copy (with dtype conversion), accumulate (any
// strides) and the host read, which on the CPU is a plain copy.
#include "core/dtype_dispatch.h"
#include "kernels/cpu/elementwise.h"
#include "tensor/primitive_ops.h"

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

void accumulate_cpu(Tensor& accumulator, const Tensor& addend) {
  dispatch_floating(accumulator.dtype(), "accumulate", [&]<typename T>() {
    T* out = accumulator.data<T>();
    kernels::cpu::map_binary(static_cast<int>(accumulator.dim()), accumulator.shape().data(), out,
                             accumulator.strides().data(), addend.data<T>(),
                             addend.strides().data(), out, accumulator.strides().data(),
                             [](T sum, T value) { return sum + value; });
  });
}

std::function<Tensor()> start_host_read_cpu(const Tensor& source) {
  Tensor copy = source.contiguous().clone();
  return [copy] { return copy; };
}

}  // namespace

// Called once by ensure_builtin_kernels_registered(): the op families in ops/ register their
// own kernels at static initialisation.
void register_cpu_kernels() {
  OpKernels<StartHostReadOp>::register_kernel(DeviceType::kCPU, start_host_read_cpu);
  OpKernels<FillOp>::register_kernel(DeviceType::kCPU, fill_cpu);
  OpKernels<CopyOp>::register_kernel(DeviceType::kCPU, copy_cpu);
  OpKernels<AccumulateOp>::register_kernel(DeviceType::kCPU, accumulate_cpu);
}

}  // namespace strand
