// ReductionLayout: a tensor's dimensions split into kept (outer) and reduced (inner) ones, with
// their strides, the form every backend's sum kernel walks.
#pragma once

#include <algorithm>
#include <vector>

#include "tensor/tensor.h"

namespace strand {

/// A tensor's dimensions split into kept (outer) and reduced (inner) ones; see
/// reduction_layout().
struct ReductionLayout {
  /// \var outer_shape
  /// Sizes of the kept dimensions, in order.
  /// \var inner_shape
  /// Sizes of the reduced dimensions, in order.
  Shape outer_shape, inner_shape;
  /// \var outer_strides
  /// Strides (in elements) of the kept dimensions.
  /// \var inner_strides
  /// Strides (in elements) of the reduced dimensions.
  Strides outer_strides, inner_strides;
};

/// Kept dimensions in order (so the output is row-major over them), reduced ones after.
inline ReductionLayout reduction_layout(const Tensor& x, const std::vector<int64_t>& dims) {
  ReductionLayout layout;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    (reduced ? layout.inner_shape : layout.outer_shape).push_back(x.shape()[d]);
    (reduced ? layout.inner_strides : layout.outer_strides).push_back(x.strides()[d]);
  }
  return layout;
}

}  // namespace strand
