// Differentiable ops on Var. Each op's forward and its gradient rule sit side by side in
// autograd/*_functions.cpp; all are checked against finite differences in float64.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "autograd/var.h"
#include "tensor/op_declarations.h"

namespace strand {

// ---- Elementwise (broadcasting) ------------------------------------------------------
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

inline Var operator+(const Var& a, const Var& b) { return add(a, b); }
inline Var operator-(const Var& a, const Var& b) { return sub(a, b); }
inline Var operator*(const Var& a, const Var& b) { return mul(a, b); }
inline Var operator/(const Var& a, const Var& b) { return div(a, b); }
inline Var operator-(const Var& x) { return neg(x); }
inline Var operator*(const Var& x, double s) { return affine(x, s, 0.0); }
inline Var operator*(double s, const Var& x) { return affine(x, s, 0.0); }
inline Var operator+(const Var& x, double c) { return affine(x, 1.0, c); }
inline Var operator-(const Var& x, double c) { return affine(x, 1.0, -c); }

// ---- Reductions ----------------------------------------------------------------------
/// Sum over `dims` (empty: all).
Var sum(const Var& x, std::vector<int64_t> dims = {}, bool keepdim = false);
Var mean(const Var& x, std::vector<int64_t> dims = {}, bool keepdim = false);
/// Max over `dim`; the gradient goes to the (first) argmax. Returns (values, indices).
std::pair<Var, Tensor> max(const Var& x, int64_t dim, bool keepdim = false);

// ---- Linear algebra and shape ----------------------------------------------------------
/// (M, K) @ (K, N) -> (M, N)
Var matmul(const Var& a, const Var& b);
Var reshape(const Var& x, Shape shape);
Var transpose(const Var& x, int64_t dim0, int64_t dim1);
Var slice(const Var& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Var concat(const std::vector<Var>& xs, int64_t dim);
std::vector<Var> chunk(const Var& x, int64_t chunks, int64_t dim);
/// chunk<2>(x, 1) -> std::array of 2 Vars, for structured bindings.
template <size_t N>
std::array<Var, N> chunk(const Var& x, int64_t dim) {
  std::vector<Var> parts = chunk(x, static_cast<int64_t>(N), dim);
  std::array<Var, N> out;
  for (size_t i = 0; i < N; ++i) out[i] = parts[i];
  return out;
}

// ---- Convolution -------------------------------------------------------------------------
/// x: (B, C, L) float, or (B, L) uint8 base codes (one-hot gather path; w must be (O, 4, K)),
/// w: (O, C, K), bias: (O) or undefined -> (B, O, L_out).
Var conv1d(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params);
/// Fused relu(max_t conv1d(x)): (B, O). Same arguments as conv1d.
Var conv1d_relu_max(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params);
/// (B, C, L) -> (B, C): max over positions.
Var global_max_pool1d(const Var& x);

// ---- Losses (mean over all elements) ---------------------------------------------------------
/// Mean binary cross-entropy of logits against targets in [0, 1] (same shape).
Var bce_with_logits(const Var& logits, const Var& targets);
/// BCE weighted per element (e.g. a label mask: 0 = ambiguous, skipped), averaged over the
/// total weight: sum(w * bce) / max(sum(w), tiny).
Var bce_with_logits(const Var& logits, const Var& targets, const Tensor& weights);
/// Mean squared error.
Var mse(const Var& prediction, const Var& target);

}  // namespace strand
