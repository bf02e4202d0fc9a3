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
// the output gradient)
STRAND_DECLARE_OP(DropoutOp, "dropout",
                  void(const Tensor& x, const DropoutMask& mask, Tensor& out));

namespace ops {
/// x (any shape and strides, float) -> x with `mask` applied, contiguous.
Tensor dropout(const Tensor& x, const DropoutMask& mask);
}  // namespace ops

/// Differentiable dropout: the gradient passes where the element was kept, scaled alike.
/// mask.rate 0 returns x itself.
Var dropout(const Var& x, const DropoutMask& mask);

}  // namespace strand
