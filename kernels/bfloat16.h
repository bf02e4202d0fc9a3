// bfloat16 (1 sign, 8 exponent, 7 mantissa bits: float32's upper half) and its conversions from
// and to float32, written once for the CPU (kernels/cpu/gemm_bf16.cpp) and the CUDA cast kernels
// (kernels/cuda/bfloat16.cu), so both backends round the operands of bf16 matrix math alike.
//
// float32 -> bfloat16 rounds to nearest, ties to even (as PyTorch's c10::BFloat16,
// __float2bfloat16_rn and oneDNN do): add 0x7FFF plus the lowest kept bit, then drop the low 16
// bits. A value whose rounding exceeds the largest bfloat16 becomes infinity, as IEEE rounding
// does; infinities stay infinities; a NaN stays a NaN (its sign and upper payload kept, made
// quiet: the rounding add could otherwise carry a NaN into infinity). float32 denormals round
// like any other value (no flush to zero here; the hardware's dot products may flush them).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/host_device.h"

namespace strand::kernels {

/// The bits of a float, portable on host and device.
STRAND_HOST_DEVICE inline uint32_t float_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

STRAND_HOST_DEVICE inline float float_from_bits(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value = 0.0F;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

/// float32 -> bfloat16 bits, to nearest even; NaN stays NaN (quiet).
STRAND_HOST_DEVICE inline uint16_t bfloat16_from_float(float value) {
  const uint32_t bits = float_bits(value);
  if ((bits & 0x7FFFFFFFU) > 0x7F800000U) return static_cast<uint16_t>((bits >> 16) | 0x0040U);
  return static_cast<uint16_t>((bits + 0x7FFFU + ((bits >> 16) & 1U)) >> 16);
}

/// bfloat16 bits -> float32 (exact).
STRAND_HOST_DEVICE inline float float_from_bfloat16(uint16_t bits) {
  return float_from_bits(static_cast<uint32_t>(bits) << 16);
}

/// value rounded to the nearest bfloat16, as a float32 (what a bf16 operand contributes).
STRAND_HOST_DEVICE inline float round_to_bfloat16(float value) {
  return float_from_bfloat16(bfloat16_from_float(value));
}

}  // namespace strand::kernels
