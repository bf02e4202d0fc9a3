// The process-wide float32 precision switch (see precision.h).
#include "tensor/precision.h"

#include <atomic>

#include "core/error.h"
#include "kernels/cpu/gemm_bf16.h"

namespace strand {
namespace {

std::atomic<Float32Precision>& setting() {
  static std::atomic<Float32Precision> precision{Float32Precision::kFp32};
  return precision;
}

}  // namespace

Float32Precision float32_precision() { return setting().load(std::memory_order_relaxed); }

void set_float32_precision(Float32Precision precision) {
  setting().store(precision, std::memory_order_relaxed);
}

std::string_view float32_precision_name(Float32Precision precision) {
  switch (precision) {
    case Float32Precision::kFp32:
      return "fp32";
    case Float32Precision::kTf32:
      return "tf32";
    case Float32Precision::kBf16:
      return "bf16";
  }
  return "?";
}

Float32Precision parse_float32_precision(std::string_view name) {
  for (const Float32Precision precision :
       {Float32Precision::kFp32, Float32Precision::kTf32, Float32Precision::kBf16}) {
    if (float32_precision_name(precision) == name) return precision;
  }
  throw Error(fmt::format("unknown float32 precision '{}' (fp32, tf32 or bf16)", name));
}

std::string float32_precision_unavailable_reason(Float32Precision precision, const Device& device) {
  // A GPU strand runs on (sm_80 and later) has bfloat16 and TF32 tensor cores; the CPU ignores
  // TF32 (it keeps float32).
  if (precision != Float32Precision::kBf16 || device.is_cuda()) return "";
  return kernels::cpu::bf16_gemm_unavailable_reason();
}

}  // namespace strand
