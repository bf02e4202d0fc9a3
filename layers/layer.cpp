// Layer: the one-input defaults of the multi-input interface, and Layer as a Model.
#include "layers/layer.h"

#include <fmt/format.h>

namespace strand {

void Layer::check_input_count(size_t count) const {
  if (input_count() == kTwoOrMoreInputs) {
    STRAND_CHECK(count >= 2, "{} takes two or more inputs, got {}", type_name(), count);
  } else {
    STRAND_CHECK(count == static_cast<size_t>(input_count()), "{} takes {} input(s), got {}",
                 type_name(), input_count(), count);
  }
}

Var Layer::forward_inputs(std::span<const Var> inputs) {
  check_input_count(inputs.size());
  return forward(inputs[0]);
}

Shape Layer::output_shape_of(std::span<const Shape> inputs) const {
  check_input_count(inputs.size());
  return output_shape(inputs[0]);
}

std::vector<Var> Layer::forward_outputs(const ModelInputs& inputs) {
  return {forward(inputs.sequence)};
}

std::vector<Shape> Layer::output_shapes(const InputShapes& inputs) const {
  return {output_shape(inputs.sequence)};
}

}  // namespace strand
