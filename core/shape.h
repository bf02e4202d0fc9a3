// Shape: the extent of each dimension, with helpers for element counts, contiguous
// strides and broadcasting.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace strand {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

/// Number of elements (1 for a scalar of rank 0).
int64_t numel(const Shape& shape);
/// Row-major strides, in elements, for a contiguous tensor of this shape.
Strides contiguous_strides(const Shape& shape);
/// "(2, 3, 4)".
std::string shape_to_string(const Shape& shape);
/// The NumPy broadcast of two shapes; throws naming `op` and both shapes when they do not
/// broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
/// Turns a possibly negative dimension into [0, rank); throws naming `op` when out of range.
int64_t normalize_dim(int64_t dim, int64_t rank, const char* op);

}  // namespace strand
