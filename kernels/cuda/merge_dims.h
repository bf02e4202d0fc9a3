// Host-side index-space helpers of the strided CUDA kernels (kernels/cuda/common.cuh): folding
// dimensions away before a launch, and the contiguity test that picks a kernel's instantiation.
// Plain C++, so tests check them without a GPU.
#pragma once

#include "kernels/cuda/index_space.h"

namespace strand::kernels::cuda {

/// Merges the adjacent dimensions of `space` that every operand walks as one (for each
/// operand, stride[d] == stride[d + 1] * extent[d + 1]) and drops the dimensions of extent 1,
/// keeping the row-major order of the elements: a contiguous tensor becomes rank 1 with
/// stride 1, a row slice rank 2. Host code, before a strided launch.
template <int N>
inline void merge_dims(IndexSpace& space, StrideSet* const (&strides)[N]) {
  IndexSpace merged;
  StrideSet kept[N];
  for (int d = 0; d < space.rank; ++d) {
    if (space.extent[d] == 1) continue;
    if (merged.rank > 0) {
      const int last = merged.rank - 1;
      bool joins = true;
      for (int i = 0; i < N; ++i) {
        joins = joins && kept[i].stride[last] == strides[i]->stride[d] * space.extent[d];
      }
      if (joins) {
        merged.extent[last] *= space.extent[d];
        for (int i = 0; i < N; ++i) kept[i].stride[last] = strides[i]->stride[d];
        continue;
      }
    }
    merged.extent[merged.rank] = space.extent[d];
    for (int i = 0; i < N; ++i) kept[i].stride[merged.rank] = strides[i]->stride[d];
    ++merged.rank;
  }
  space = merged;
  for (int i = 0; i < N; ++i) *strides[i] = kept[i];
}

/// True when `strides` are the row-major contiguous strides of `space`.
inline bool is_contiguous(const IndexSpace& space, const StrideSet& strides) {
  int64_t expected = 1;
  for (int d = space.rank - 1; d >= 0; --d) {
    if (space.extent[d] != 1 && strides.stride[d] != expected) return false;
    expected *= space.extent[d];
  }
  return true;
}

}  // namespace strand::kernels::cuda
