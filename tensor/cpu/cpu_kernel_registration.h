// The per-family registration functions of the CPU backend, called once by
// register_cpu_kernels().
#pragma once

namespace strand {

void register_cpu_memory_kernels();
void register_cpu_elementwise_kernels();
void register_cpu_reduction_kernels();
void register_cpu_matmul_kernels();
void register_cpu_conv_kernels();
void register_cpu_loss_kernels();
void register_cpu_optimizer_kernels();

}  // namespace strand
