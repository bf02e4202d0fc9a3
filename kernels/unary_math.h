// The element-wise unary functions (UnaryOp's kinds), written once for the CPU loops
// (ops/elementwise.cpp) and the CUDA kernels (kernels/cuda/elementwise.cu). Adding a kind adds an
// enumerator, its formula in unary_of<K> and a case in visit_unary: nothing else lists them.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/host_device.h"

namespace strand::kernels {

/// kGeluDerivative is d gelu / dx, the gradient rule of kGelu. kLgamma, log|Gamma(x)|, serves
/// the multinomial likelihood's constant terms (no gradient rule).
enum class UnaryKind : uint8_t {
  kNeg,
  kExp,
  kLog,
  kSigmoid,
  kRelu,
  kTanh,
  kSqrt,
  kSquare,
  kSoftplus,
  kGelu,
  kGeluDerivative,
  kLgamma,
};

/// 1 / (1 + exp(-x)) in two branches, so exp never overflows.
template <typename T>
STRAND_HOST_DEVICE inline T sigmoid_of(T x) {
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

/// log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): no overflow for large x, no loss of
/// precision for very negative x.
template <typename T>
STRAND_HOST_DEVICE inline T softplus_of(T x) {
  return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-std::fabs(x)));
}

/// GELU, the exact form (PyTorch's default): x * Phi(x) with Phi the standard normal CDF.
template <typename T>
STRAND_HOST_DEVICE inline T gelu_of(T x) {
  return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
}

/// d gelu / dx = Phi(x) + x * phi(x).
template <typename T>
STRAND_HOST_DEVICE inline T gelu_derivative_of(T x) {
  const T cdf = T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440)));
  const T pdf = T(0.39894228040143267794) * std::exp(T(-0.5) * x * x);
  return cdf + x * pdf;
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
  } else if constexpr (K == UnaryKind::kSoftplus) {
    return softplus_of(v);
  } else if constexpr (K == UnaryKind::kGelu) {
    return gelu_of(v);
  } else if constexpr (K == UnaryKind::kGeluDerivative) {
    return gelu_derivative_of(v);
  } else if constexpr (K == UnaryKind::kLgamma) {
    return std::lgamma(v);
  } else {
    static_assert(K == UnaryKind::kSquare);
    return v * v;
  }
}

/// f'(x) for the kind K from x and y = f(x): the gradient rules of ops/elementwise.cpp, written
/// once more for DeepLIFT's rescale rule, which needs the derivative where the input and the
/// reference's input nearly coincide. kGeluDerivative and kLgamma have no gradient rule: 0.
template <UnaryKind K, typename T>
STRAND_HOST_DEVICE inline T derivative_of(T x, T y) {
  if constexpr (K == UnaryKind::kNeg) {
    return T(-1);
  } else if constexpr (K == UnaryKind::kExp) {
    return y;
  } else if constexpr (K == UnaryKind::kLog) {
    return T(1) / x;
  } else if constexpr (K == UnaryKind::kSigmoid) {
    return y * (T(1) - y);
  } else if constexpr (K == UnaryKind::kRelu) {
    return x > T(0) ? T(1) : T(0);
  } else if constexpr (K == UnaryKind::kTanh) {
    return T(1) - y * y;
  } else if constexpr (K == UnaryKind::kSqrt) {
    return T(0.5) / y;
  } else if constexpr (K == UnaryKind::kSoftplus) {
    return sigmoid_of(x);
  } else if constexpr (K == UnaryKind::kGelu) {
    return gelu_derivative_of(x);
  } else if constexpr (K == UnaryKind::kSquare) {
    return T(2) * x;
  } else {
    return T(0);
  }
}

/// DeepLIFT's rescale multiplier of f for one element, y = f(x) and y_ref = f(x_ref): the secant
/// (y - y_ref) / (x - x_ref), or f'(x) where |x - x_ref| < 1e-6 (tangermeme's and captum's
/// threshold).
template <UnaryKind K, typename T>
STRAND_HOST_DEVICE inline T rescale_of(T x, T x_ref, T y, T y_ref) {
  // Both sides computed and one selected, so that a CPU loop vectorises (the secant of a zero dx
  // is discarded).
  const T dx = x - x_ref;
  const T secant = (y - y_ref) / dx;
  const T derivative = derivative_of<K>(x, y);
  return (dx < T(1e-6) && dx > T(-1e-6)) ? derivative : secant;
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
    case K::kSoftplus:
      return f(std::integral_constant<K, K::kSoftplus>{});
    case K::kGelu:
      return f(std::integral_constant<K, K::kGelu>{});
    case K::kGeluDerivative:
      return f(std::integral_constant<K, K::kGeluDerivative>{});
    case K::kLgamma:
      return f(std::integral_constant<K, K::kLgamma>{});
    case K::kSquare:
      break;
  }
  return f(std::integral_constant<K, K::kSquare>{});
}

}  // namespace strand::kernels
