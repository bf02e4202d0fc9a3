// Elementwise ops: unary functions (their formulas in kernels/unary_math.h), broadcast binary
// arithmetic, affine maps and the pointwise backward rules of relu and sigmoid. Declared,
// checked, dispatched and differentiated here; the kernels are kernels/cpu/elementwise.h and
// kernels/cuda/elementwise.cu.
#pragma once

#include <cstdint>

#include "autograd/var.h"
#include "kernels/unary_math.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

/// The unary kinds and their formulas are defined once, in kernels/unary_math.h.
using UnaryOpKind = kernels::UnaryKind;
/// kMaximum: max(a, b) (NaN when either is NaN). kGreater: 1 where a > b, else 0 (a metric,
/// not differentiable: autograd never records it).
enum class BinaryOpKind : uint8_t { kAdd, kSub, kMul, kDiv, kMaximum, kGreater };

// ---- The ops and their kernel signatures -----------------------------------------------
// out = f(x), x any strides, out contiguous of x's shape
STRAND_DECLARE_OP(UnaryOp, "unary", void(UnaryOpKind kind, const Tensor& x, Tensor& out));
// out = a (op) b with NumPy broadcasting; a, b any strides
STRAND_DECLARE_OP(BinaryOp, "binary",
                  void(BinaryOpKind kind, const Tensor& a, const Tensor& b, Tensor& out));
// out = x * scale + shift
STRAND_DECLARE_OP(AffineOp, "affine",
                  void(const Tensor& x, double scale, double shift, Tensor& out));
// m = DeepLIFT's rescale multiplier of f = kind (kernels::rescale_of) for x, x_ref, y = f(x)
// (undefined: recomputed, for relu, whose recomputation is exact) and y_ref = f(x_ref), all
// contiguous of one shape
STRAND_DECLARE_OP(RescaleOp, "rescale",
                  void(UnaryOpKind kind, const Tensor& x, const Tensor& x_ref, const Tensor& y,
                       const Tensor& y_ref, Tensor& m));
// out = routed / dx where dx != 0, else fallback; all contiguous of one shape
STRAND_DECLARE_OP(DivideWhereChangedOp, "divide_where_changed",
                  void(const Tensor& routed, const Tensor& dx, const Tensor& fallback,
                       Tensor& out));
// dx = dy * (x > 0)
STRAND_DECLARE_OP(ReluBackwardOp, "relu_backward",
                  void(const Tensor& grad_out, const Tensor& x, Tensor& grad_in));
// dx = dy * y * (1 - y), y = sigmoid(x)
STRAND_DECLARE_OP(SigmoidBackwardOp, "sigmoid_backward",
                  void(const Tensor& grad_out, const Tensor& y, Tensor& grad_in));

// ---- On tensors (no autograd) -----------------------------------------------------------
namespace ops {
Tensor unary(UnaryOpKind kind, const Tensor& x);
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor square(const Tensor& x);
/// log(1 + exp(x)), overflow-free.
Tensor softplus(const Tensor& x);
/// x * Phi(x) (exact GELU, PyTorch's default).
Tensor gelu(const Tensor& x);
/// a (op) b with NumPy broadcasting; same dtype and device.
Tensor binary(BinaryOpKind kind, const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
/// Elementwise max(a, b), broadcasting; NaN propagates.
Tensor maximum(const Tensor& a, const Tensor& b);
/// 1 where a > b, else 0, broadcasting (for metrics; not differentiable).
Tensor greater(const Tensor& a, const Tensor& b);
/// x * scale + shift
Tensor affine(const Tensor& x, double scale, double shift);
Tensor relu_backward(const Tensor& grad_out, const Tensor& x);
Tensor sigmoid_backward(const Tensor& grad_out, const Tensor& y);
/// DeepLIFT's rescale multiplier of the elementwise f = `kind` (autograd/attribution.h), y =
/// f(x), y_ref = f(x_ref): the secant (y - y_ref) / (x - x_ref), or f'(x) where |x - x_ref| <
/// 1e-6, the threshold of tangermeme and captum. An undefined y is recomputed, which only relu
/// reproduces bit for bit (a transcendental function's vectorised and scalar forms may round
/// differently, and a secant over a small dx magnifies that). One pass on the CPU; other
/// devices compose it from the ops above.
Tensor rescale_multiplier(UnaryOpKind kind, const Tensor& x, const Tensor& x_ref, const Tensor& y,
                          const Tensor& y_ref);
/// routed / dx where dx != 0, else `fallback`: the multiplier of max pooling's DeepLIFT rule,
/// which routes the change of each output to the inputs that were chosen. One pass on the CPU;
/// other devices compose it.
Tensor divide_where_changed(const Tensor& routed, const Tensor& dx, const Tensor& fallback);
/// The two multipliers composed from the element-wise ops above: what devices without the
/// one-pass kernels run, and the oracles the CPU kernels are tested against.
Tensor rescale_multiplier_composed(UnaryOpKind kind, const Tensor& x, const Tensor& x_ref,
                                   const Tensor& y, const Tensor& y_ref);
Tensor divide_where_changed_composed(const Tensor& routed, const Tensor& dx,
                                     const Tensor& fallback);
}  // namespace ops

// ---- Differentiable (broadcasting) ------------------------------------------------------
// The unary functions (exp, log, sigmoid, relu, tanh, sqrt, square, softplus, gelu) also carry
// DeepLIFT's rescale rule, used in an attribution pass (autograd/attribution.h); add, sub,
// affine and neg are linear, and mul and div are linear in a factor that does not depend on the
// input (a product of two input-dependent values has no DeepLIFT rule and throws in that pass).
Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);
/// x * scale + shift
Var affine(const Var& x, double scale, double shift);
Var neg(const Var& x);
Var exp(const Var& x);
Var log(const Var& x);
Var sigmoid(const Var& x);
Var relu(const Var& x);
Var tanh(const Var& x);
Var sqrt(const Var& x);
Var square(const Var& x);
/// log(1 + exp(x)); gradient sigmoid(x).
Var softplus(const Var& x);
/// x * Phi(x); gradient Phi(x) + x * phi(x).
Var gelu(const Var& x);

inline Var operator+(const Var& a, const Var& b) { return add(a, b); }
inline Var operator-(const Var& a, const Var& b) { return sub(a, b); }
inline Var operator*(const Var& a, const Var& b) { return mul(a, b); }
inline Var operator/(const Var& a, const Var& b) { return div(a, b); }
inline Var operator-(const Var& x) { return neg(x); }
inline Var operator*(const Var& x, double s) { return affine(x, s, 0.0); }
inline Var operator*(double s, const Var& x) { return affine(x, s, 0.0); }
inline Var operator+(const Var& x, double c) { return affine(x, 1.0, c); }
inline Var operator-(const Var& x, double c) { return affine(x, 1.0, -c); }

}  // namespace strand
