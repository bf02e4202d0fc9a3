// Shape ops: reshape, transpose, slice, concat and chunk. Views where the layout allows, copies
// (Tensor::copy_) where it does not; they need no kernels of their own.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "autograd/var.h"
#include "tensor/tensor.h"

namespace strand {

// ---- On tensors (no autograd; reshape, transpose and slice are Tensor methods) -----------
namespace ops {
/// Joins tensors along `dim`; all other extents must agree.
Tensor concat(const std::vector<Tensor>& tensors, int64_t dim);
/// Splits `dim` into `chunks` equal views (extent must divide).
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim);
}  // namespace ops

// ---- Differentiable ---------------------------------------------------------------------
Var reshape(const Var& x, Shape shape);
Var transpose(const Var& x, int64_t dim0, int64_t dim1);
Var slice(const Var& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Var concat(const std::vector<Var>& xs, int64_t dim);
std::vector<Var> chunk(const Var& x, int64_t chunks, int64_t dim);
/// (B, C, L) -> (B, C, length): the centre `length` positions (BPNet crops its profile head's
/// output to the target length); an odd surplus leaves the extra position on the right.
Var crop1d(const Var& x, int64_t length);
/// chunk<2>(x, 1) -> std::array of 2 Vars, for structured bindings.
template <size_t N>
std::array<Var, N> chunk(const Var& x, int64_t dim) {
  std::vector<Var> parts = chunk(x, static_cast<int64_t>(N), dim);
  std::array<Var, N> out;
  for (size_t i = 0; i < N; ++i) out[i] = parts[i];
  return out;
}

}  // namespace strand
