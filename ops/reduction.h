// Reductions: sum and mean over dimensions, max with its argmax (and global max pooling, a
// max over positions), and sum_to_shape, the inverse of broadcasting. Declared, checked,
// dispatched and differentiated here; the kernels are kernels/cpu/reduction.h and
// kernels/cuda/reduction.cu.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "autograd/var.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

// ---- The ops and their kernel signatures -----------------------------------------------
// out = sum of x over `dims` (sorted, unique), out shaped as x with those dims set to 1
STRAND_DECLARE_OP(SumOp, "sum",
                  void(const Tensor& x, const std::vector<int64_t>& dims, Tensor& out));
// values, indices = max of x over `dim` (first index on ties), shaped as x with dim set to 1
STRAND_DECLARE_OP(MaxOp, "max",
                  void(const Tensor& x, int64_t dim, Tensor& values, Tensor& indices));
// grad_in (zeroed by the caller, x's shape) [.., indices[..], ..] += grad_out[.., 0, ..]
STRAND_DECLARE_OP(MaxBackwardOp, "max_backward",
                  void(const Tensor& grad_out, const Tensor& indices, int64_t dim,
                       Tensor& grad_in));
// out (0-d float64) = sum of x^2 over every element of the contiguous x, added in float64
STRAND_DECLARE_OP(SumOfSquaresOp, "sum_of_squares", void(const Tensor& x, Tensor& out));

// ---- On tensors (no autograd) -----------------------------------------------------------
namespace ops {
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
/// The sum of the squares of every element of x (float32 or float64), accumulated in float64:
/// a 0-d float64 tensor on x's device. On a GPU no float64 copy of x is made (the global
/// gradient norm of clip_grad_norm).
Tensor sum_of_squares(const Tensor& x);
}  // namespace ops

// ---- Differentiable ---------------------------------------------------------------------
/// Sum over `dims` (empty: all).
Var sum(const Var& x, std::vector<int64_t> dims = {}, bool keepdim = false);
Var mean(const Var& x, std::vector<int64_t> dims = {}, bool keepdim = false);
/// Max over `dim`; the gradient goes to the (first) argmax. Returns (values, indices).
std::pair<Var, Tensor> max(const Var& x, int64_t dim, bool keepdim = false);
/// (B, C, L) -> (B, C): max over positions.
Var global_max_pool1d(const Var& x);

}  // namespace strand
