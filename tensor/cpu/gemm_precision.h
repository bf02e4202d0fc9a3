// The operand precision of the CPU's float32 GEMMs (kernels/cpu/gemm_bf16.h) under the
// process's float32 precision setting (tensor/precision.h), for the op adapters of matmul and
// the dense convolutions: bfloat16 operands under kBf16, float32 otherwise (TF32 is a GPU mode).
#pragma once

#include "kernels/cpu/gemm_bf16.h"
#include "tensor/precision.h"

namespace strand {

inline kernels::cpu::GemmPrecision cpu_gemm_precision() {
  return float32_precision() == Float32Precision::kBf16 ? kernels::cpu::GemmPrecision::kBfloat16
                                                        : kernels::cpu::GemmPrecision::kFloat32;
}

}  // namespace strand
