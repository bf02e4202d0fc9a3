// CPU kernel for 2-D matrix multiply (strided operands, so transposed views need no copy).
#include "core/dtype_dispatch.h"
#include "kernels/cpu/matmul.h"
#include "tensor/cpu/cpu_kernel_registration.h"
#include "tensor/op_declarations.h"

namespace strand {
namespace {

void matmul_cpu(const Tensor& a, const Tensor& b, Tensor& out) {
  dispatch_floating(a.dtype(), "matmul", [&]<typename T>() {
    kernels::cpu::matmul_fast<T>(a.size(0), b.size(1), a.size(1), a.data<T>(), a.strides()[0],
                                 a.strides()[1], b.data<T>(), b.strides()[0], b.strides()[1],
                                 out.data<T>());
  });
}

}  // namespace

void register_cpu_matmul_kernels() {
  OpKernels<MatmulOp>::register_kernel(DeviceType::kCPU, matmul_cpu);
}

}  // namespace strand
