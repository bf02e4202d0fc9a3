// Tensor ops without autograd: each checks its arguments (naming the op and the shapes,
// dtypes or devices that disagree), allocates the output on the inputs' device and dispatches
// to that device's kernel. autograd/ builds differentiable versions on top of these.
#pragma once

#include <utility>
#include <vector>

#include "tensor/op_declarations.h"
#include "tensor/tensor.h"

namespace strand::ops {

// ---- Elementwise ----------------------------------------------------------------------
Tensor unary(UnaryOpKind kind, const Tensor& x);
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor square(const Tensor& x);
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
/// In place: accumulator += addend (same shape). Used for gradient accumulation.
void add_(Tensor& accumulator, const Tensor& addend);

// ---- Reductions -----------------------------------------------------------------------
/// Sum over `dims` (negative allowed; empty = all). keepdim keeps them as size 1.
Tensor sum(const Tensor& x, std::vector<int64_t> dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, std::vector<int64_t> dims = {}, bool keepdim = false);
/// Max over `dim` and the (first) index of it: (values, indices int64).
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
/// Scatters grad_out (x's shape with `dim` of extent 1 or removed) to the argmax positions.
Tensor max_backward(const Tensor& grad_out, const Tensor& indices, int64_t dim,
                    const Shape& input_shape);
/// Sums a broadcast gradient back down to `shape` (the inverse of broadcasting).
Tensor sum_to_shape(const Tensor& grad, const Shape& shape);

// ---- Linear algebra and shape ----------------------------------------------------------
/// (M, K) @ (K, N) -> (M, N).
Tensor matmul(const Tensor& a, const Tensor& b);
/// Joins tensors along `dim`; all other extents must agree.
Tensor concat(const std::vector<Tensor>& tensors, int64_t dim);
/// Splits `dim` into `chunks` equal views (extent must divide).
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim);

// ---- Convolution ------------------------------------------------------------------------
/// x: (B, C, L) float -> (B, O, L_out); or codes (B, L) uint8 with w: (O, 4, K) through the
/// one-hot gather kernel.
Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv1DParams& params);
Tensor conv1d_backward_input(const Tensor& grad_out, const Tensor& w, const Shape& input_shape,
                             const Conv1DParams& params);
/// grad_w for float input or for codes (one-hot scatter).
Tensor conv1d_backward_weight(const Tensor& grad_out, const Tensor& x, const Shape& weight_shape,
                              const Conv1DParams& params);
/// relu(max over positions of conv1d(x)): (out (B, O), argmax (B, O) int64).
std::pair<Tensor, Tensor> conv1d_relu_max(const Tensor& x, const Tensor& w, const Tensor& bias,
                                          const Conv1DParams& params);
/// The expected one-hot float tensor (B, 4, L) of codes (B, L); N is all zeros.
Tensor one_hot(const Tensor& codes, DType dtype = DType::kFloat32);

// ---- Losses -------------------------------------------------------------------------------
/// Elementwise numerically stable binary cross-entropy of logits against targets in [0, 1].
Tensor bce_with_logits(const Tensor& logits, const Tensor& targets);
Tensor bce_with_logits_backward(const Tensor& grad_out, const Tensor& logits,
                                const Tensor& targets);

// ---- Argument checks shared with autograd and layers --------------------------------------
void check_same_device(const char* op, const Tensor& a, const Tensor& b);
void check_same_dtype(const char* op, const Tensor& a, const Tensor& b);
void check_rank(const char* op, const char* name, const Tensor& t, int64_t rank);

}  // namespace strand::ops
