// Launchers of the element-wise CUDA kernels (kernels/cuda/elementwise.cu): the unary kinds of
// kernels/unary_math.h, affine, and the broadcast binary kinds. Contracts as in
// kernels/cpu/elementwise.h. Launchers take raw device pointers, sizes in elements and
// the stream to run on, and check their launch (STRAND_CUDA_CHECK_LAUNCH).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/cuda/index_space.h"
#include "kernels/unary_math.h"

namespace strand::kernels::cuda {

/// out = f(x), f the formula of `kind` in kernels/unary_math.h.
void unary(DType dtype, UnaryKind kind, const void* x, const StrideSet& x_strides, void* out,
           const StrideSet& out_strides, const IndexSpace& space, cudaStream_t stream);
/// out = x * scale + shift.
void affine(DType dtype, const void* x, const StrideSet& x_strides, void* out,
            const StrideSet& out_strides, const IndexSpace& space, double scale, double shift,
            cudaStream_t stream);
enum class Binary : int {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMaximum,
  kGreater,
  kReluBackward,
  kSigmoidBackward
};
/// out = a (op) b; broadcasting is stride 0. kReluBackward: a * (b > 0); kSigmoidBackward:
/// a * b * (1 - b). out may alias a (same strides).
void binary(DType dtype, Binary kind, const void* a, const StrideSet& a_strides, const void* b,
            const StrideSet& b_strides, void* out, const StrideSet& out_strides,
            const IndexSpace& space, cudaStream_t stream);

}  // namespace strand::kernels::cuda
