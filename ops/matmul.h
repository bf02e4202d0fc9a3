// Matrix multiply: (M, K) @ (K, N) -> (M, N) on strided operands, so transposed views need no
// copy. Declared, checked, dispatched and differentiated here; the kernels are
// kernels/cpu/matmul.h and cuBLAS.
#pragma once

#include "autograd/var.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

// out (M, N) = a (M, K) @ b (K, N); a and b may be transposed views (any strides)
STRAND_DECLARE_OP(MatmulOp, "matmul", void(const Tensor& a, const Tensor& b, Tensor& out));

namespace ops {
/// (M, K) @ (K, N) -> (M, N).
Tensor matmul(const Tensor& a, const Tensor& b);
}  // namespace ops

/// (M, K) @ (K, N) -> (M, N); dA = G @ B^T, dB = A^T @ G.
Var matmul(const Var& a, const Var& b);

}  // namespace strand
