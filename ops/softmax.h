// Softmax and log-softmax along one dimension, composed from the reduction and elementwise
// families (so both backends and the gradient come with them): log_softmax(x) = z -
// log(sum(exp(z))) with z = x - max(x), the max held constant (it cancels in the value and the
// gradient), which keeps exp from overflowing.
#pragma once

#include <cstdint>

#include "autograd/var.h"
#include "tensor/tensor.h"

namespace strand {

namespace ops {
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor softmax(const Tensor& x, int64_t dim);
}  // namespace ops

/// log(softmax(x)) along `dim` (negative counts from the end), numerically stable.
Var log_softmax(const Var& x, int64_t dim);
/// exp(x) / sum(exp(x)) along `dim`.
Var softmax(const Var& x, int64_t dim);

}  // namespace strand
