// The precision of float32 matrix math (the GEMMs of matmul and of the dense convolutions):
//
// - kFp32 (the default): exact float32, so results follow the CPU oracles to float32 rounding.
// - kTf32: on a GPU, TensorFloat-32 tensor cores (A100, H100) with a 10-bit mantissa in the
//   products, sums in float32: about 1e-3 relative error per product. cuBLAS's matmuls and
//   cuDNN's convolutions take it (PyTorch allows it in cuDNN convolutions by default, so a
//   comparison states which mode each side ran). The CPU keeps float32.
// - kBf16: mixed precision as torch.autocast(dtype=torch.bfloat16) runs a matmul or a
//   convolution: the operands rounded to bfloat16 (to nearest even), the products summed in
//   float32, the result float32. Parameters, optimizer state, activations between ops,
//   BatchNorm's statistics, losses and reductions stay float32. On a GPU: cuBLAS and cuDNN on
//   bfloat16 tensor cores (every GPU strand runs on, sm_80 and later, has them; cuDNN rounds a
//   convolution's output to bfloat16 too). On a CPU: oneDNN's bfloat16 GEMM, only where the CPU
//   has AVX-512 BF16 or AMX (float32_precision_unavailable_reason). Convolutions over base codes
//   (the one-hot first layer, a gather), the fused Conv1D+ReLU+GlobalMaxPool and strand's own
//   CUDA conv kernels stay float32; float64 always runs in float64.
//
// The setting is process-wide: the CLI's config key "precision" (fp32, tf32 or bf16) and
// set_float32_precision() change it for every later op.
#pragma once

#include <string>
#include <string_view>

#include "core/device.h"

namespace strand {

enum class Float32Precision { kFp32, kTf32, kBf16 };

/// The precision float32 matrix math runs at now.
Float32Precision float32_precision();
/// Changes it for every later op (cuBLAS handles and cuDNN plans follow on their next use).
void set_float32_precision(Float32Precision precision);

/// Sets the precision for its lifetime and restores the one before (a training run's precision
/// ends with it: a Python session then predicts at its own).
class Float32PrecisionScope {
 public:
  explicit Float32PrecisionScope(Float32Precision precision) : saved_(float32_precision()) {
    set_float32_precision(precision);
  }
  ~Float32PrecisionScope() { set_float32_precision(saved_); }
  Float32PrecisionScope(const Float32PrecisionScope&) = delete;
  Float32PrecisionScope& operator=(const Float32PrecisionScope&) = delete;

 private:
  Float32Precision saved_;
};

/// "fp32", "tf32" or "bf16".
std::string_view float32_precision_name(Float32Precision precision);
/// The precision of a name float32_precision_name gives; throws strand::Error on another.
Float32Precision parse_float32_precision(std::string_view name);

/// Why `precision` cannot run on `device` in this process (a CPU without AVX-512 BF16 or AMX
/// for kBf16: "this CPU has no AVX-512 BF16 or AMX"); empty when it can.
std::string float32_precision_unavailable_reason(Float32Precision precision, const Device& device);

}  // namespace strand
