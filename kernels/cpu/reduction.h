// Reduction CPU kernels: sums over several dimensions and max-with-argmax over one.
// Both take the input already permuted so that kept dimensions come first (outer) and
// reduced ones last (inner), with arbitrary strides.
#pragma once

#include <cstdint>

namespace strand::kernels::cpu {

/// out[o] = sum over the inner index space of x, for each of `outer_count` outer positions.
/// x is addressed through (outer_rank + inner_rank) extents/strides. Accumulates in double.
template <typename T>
void sum_reduce(int outer_rank, const int64_t* outer_shape, const int64_t* outer_strides,
                int inner_rank, const int64_t* inner_shape, const int64_t* inner_strides,
                const T* x, T* out);

/// For each outer position o: values[o] = max_i x[o, i], indices[o] = first argmax i, over
/// `count` elements spaced `stride` apart. NaN propagates (a NaN wins, as in PyTorch).
template <typename T>
void max_reduce(int64_t outer_count, const int64_t* outer_offsets, int64_t count, int64_t stride,
                const T* x, T* values, int64_t* indices);

}  // namespace strand::kernels::cpu
