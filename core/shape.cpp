// Shape helpers.
#include "core/shape.h"

#include "core/error.h"

namespace strand {

int64_t numel(const Shape& shape) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

Strides contiguous_strides(const Shape& shape) {
  Strides strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

std::string shape_to_string(const Shape& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    STRAND_CHECK(da == db || da == 1 || db == 1,
                 "{}: shapes {} and {} do not broadcast (dimension {}: {} vs {})", op,
                 shape_to_string(a), shape_to_string(b), i, da, db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t normalize_dim(int64_t dim, int64_t rank, const char* op) {
  const int64_t normalized = dim < 0 ? dim + rank : dim;
  STRAND_CHECK(normalized >= 0 && normalized < rank,
               "{}: dimension {} is out of range for a tensor of rank {}", op, dim, rank);
  return normalized;
}

}  // namespace strand
