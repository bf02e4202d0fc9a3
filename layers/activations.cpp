// Parameter-free layers.
#include "layers/activations.h"

#include "autograd/functions.h"

namespace strand {

Var ReLU::forward(const Var& x) { return relu(x); }

Var Sigmoid::forward(const Var& x) { return sigmoid(x); }

Var GlobalMaxPool1D::forward(const Var& x) { return global_max_pool1d(x); }

Shape GlobalMaxPool1D::output_shape(const Shape& input) const {
  STRAND_CHECK(input.size() == 2, "GlobalMaxPool1D: expected input (C, L), got {}",
               shape_to_string(input));
  return {input[0]};
}

Var Flatten::forward(const Var& x) { return reshape(x, {x.size(0), -1}); }

Shape Flatten::output_shape(const Shape& input) const { return {numel(input)}; }

}  // namespace strand
