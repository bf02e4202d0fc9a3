// Dropout: each element kept with probability 1 - rate and scaled by 1 / (1 - rate), dropped
// otherwise, by a mask that is a pure function of (seed, step, element index)
// (kernels/dropout_math.h): no mask is stored, the backward pass recomputes it, and both
// backends draw the same one. Declared, checked, dispatched and differentiated here.
#pragma once

#include "autograd/var.h"
#include "kernels/dropout_math.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

using DropoutMask = kernels::DropoutMask;

// out = x * mask.factor(i) for each element i of the contiguous x (also the backward pass, on
// the output gradient). `step`: undefined, or a one-element int64 tensor on x's device whose
// value replaces mask.step, read where the kernel runs (a replayed CUDA graph sees its value
// at replay, not the one at capture).
STRAND_DECLARE_OP(DropoutOp, "dropout",
                  void(const Tensor& x, const DropoutMask& mask, const Tensor& step, Tensor& out));

namespace ops {
/// x (any shape and strides, float) -> x with `mask` applied, contiguous; with `step` (one
/// int64 on x's device) the mask's step is read from it.
Tensor dropout(const Tensor& x, const DropoutMask& mask, const Tensor& step = Tensor());
}  // namespace ops

/// Differentiable dropout: the gradient passes where the element was kept, scaled alike (the
/// backward pass reads `step` again: it must keep its value until then). mask.rate 0 returns
/// x itself.
Var dropout(const Var& x, const DropoutMask& mask, const Tensor& step = Tensor());

}  // namespace strand
