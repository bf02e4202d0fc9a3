// The element-wise unary functions (UnaryOp's kinds), written once for the CPU loops
// (tensor/cpu) and the CUDA kernels (kernels/cuda/elementwise.cu). Adding a kind adds an
// enumerator, its formula in unary_of<K> and a case in visit_unary: nothing else lists them.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/host_device.h"

namespace strand::kernels {

enum class UnaryKind : uint8_t { kNeg, kExp, kLog, kSigmoid, kRelu, kTanh, kSqrt, kSquare };

/// 1 / (1 + exp(-x)) in two branches, so exp never overflows.
template <typename T>
STRAND_HOST_DEVICE inline T sigmoid_of(T x) {
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

/// f(v) for the kind K.
template <UnaryKind K, typename T>
STRAND_HOST_DEVICE inline T unary_of(T v) {
  if constexpr (K == UnaryKind::kNeg) {
    return -v;
  } else if constexpr (K == UnaryKind::kExp) {
    return std::exp(v);
  } else if constexpr (K == UnaryKind::kLog) {
    return std::log(v);
  } else if constexpr (K == UnaryKind::kSigmoid) {
    return sigmoid_of(v);
  } else if constexpr (K == UnaryKind::kRelu) {
    return v > T(0) ? v : T(0);
  } else if constexpr (K == UnaryKind::kTanh) {
    return std::tanh(v);
  } else if constexpr (K == UnaryKind::kSqrt) {
    return std::sqrt(v);
  } else {
    static_assert(K == UnaryKind::kSquare);
    return v * v;
  }
}

/// Calls f(std::integral_constant<UnaryKind, K>{}) for the runtime `kind` and returns its
/// result, on the host: the CPU loop and the CUDA launcher switch once, outside the loop or
/// kernel, and run unary_of<K> inside.
template <typename F>
inline auto visit_unary(UnaryKind kind, F&& f) {
  using K = UnaryKind;
  switch (kind) {
    case K::kNeg:
      return f(std::integral_constant<K, K::kNeg>{});
    case K::kExp:
      return f(std::integral_constant<K, K::kExp>{});
    case K::kLog:
      return f(std::integral_constant<K, K::kLog>{});
    case K::kSigmoid:
      return f(std::integral_constant<K, K::kSigmoid>{});
    case K::kRelu:
      return f(std::integral_constant<K, K::kRelu>{});
    case K::kTanh:
      return f(std::integral_constant<K, K::kTanh>{});
    case K::kSqrt:
      return f(std::integral_constant<K, K::kSqrt>{});
    case K::kSquare:
      break;
  }
  return f(std::integral_constant<K, K::kSquare>{});
}

}  // namespace strand::kernels
