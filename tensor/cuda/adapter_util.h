// Helpers of the CUDA Tensor adapters (tensor/cuda and the CUDA sections of ops/): Tensor ->
// IndexSpace/StrideSet, optional pointers, a tensor's stream.
#pragma once

#include "kernels/cuda/index_space.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/device.h"
#include "tensor/tensor.h"

namespace strand::cuda {

inline kernels::cuda::IndexSpace space_of(const Shape& shape, const char* op) {
  STRAND_CHECK(static_cast<int>(shape.size()) <= kernels::cuda::kMaxRank,
               "{} (CUDA): tensors of rank {} are not supported (at most {})", op, shape.size(),
               kernels::cuda::kMaxRank);
  kernels::cuda::IndexSpace space;
  space.rank = static_cast<int>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) space.extent[d] = shape[d];
  return space;
}

inline kernels::cuda::StrideSet strides_of(const Strides& strides) {
  kernels::cuda::StrideSet set;
  for (size_t d = 0; d < strides.size() && d < kernels::cuda::kMaxRank; ++d) {
    set.stride[d] = strides[d];
  }
  return set;
}

template <typename T>
const T* optional_ptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.raw_data()) : nullptr;
}
inline void* optional_mut(const Tensor& t) { return t.defined() ? t.raw_data() : nullptr; }

/// The stream of the (current, checked) device `t` lives on.
inline cudaStream_t stream_of(const Tensor& t) {
  require_device(t.device());
  return stream(t.device());
}

}  // namespace strand::cuda
