// Registers every CPU kernel with the op registry.
#include "tensor/cpu/cpu_kernel_registration.h"

namespace strand {

void register_cpu_kernels() {
  register_cpu_memory_kernels();
  register_cpu_elementwise_kernels();
  register_cpu_reduction_kernels();
  register_cpu_matmul_kernels();
  register_cpu_conv_kernels();
  register_cpu_loss_kernels();
  register_cpu_optimizer_kernels();
}

}  // namespace strand
