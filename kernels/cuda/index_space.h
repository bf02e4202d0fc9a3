// IndexSpace and StrideSet: the N-d index space a strided CUDA kernel walks, in row-major order,
// and each operand's strides over it, in elements (tensor/cuda/adapter_util.h fills them from a
// Tensor; kernels/ knows none).
#pragma once

#include <cstdint>

namespace strand::kernels::cuda {

/// Most dimensions a strided kernel handles (adapters merge or reject beyond this).
inline constexpr int kMaxRank = 8;

/// An N-d index space walked in row-major order.
struct IndexSpace {
  int rank = 0;
  int64_t extent[kMaxRank] = {};
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= extent[d];
    return n;
  }
};
/// One operand's strides over an IndexSpace, in elements.
struct StrideSet {
  int64_t stride[kMaxRank] = {};
};

}  // namespace strand::kernels::cuda
