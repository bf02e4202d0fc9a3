// Crop1D and its catalog entry.
#include "layers/crop1d.h"

#include <fmt/format.h>

#include "layers/layer_catalog.h"
#include "ops/shape.h"

namespace strand {

Crop1D::Crop1D(int64_t length) : length_(length) {
  STRAND_CHECK(length >= 1, "Crop1D: length must be >= 1, got {}", length);
}

Var Crop1D::forward(const Var& x) { return crop1d(x, length_); }

Shape Crop1D::output_shape(const Shape& input) const {
  STRAND_CHECK(input.size() == 2 && input[1] >= length_,
               "Crop1D({}): expected input (C, L) with L >= {}, got ({})", length_, length_,
               fmt::join(input, ", "));
  return {input[0], length_};
}

LayerType crop1d_layer_type() {
  LayerType type;
  type.name = "Crop1D";
  type.help = "(C, L) -> (C, length): the centre positions";
  type.options = {
      {.name = "length",
       .help = "positions kept",
       .required = true,
       .min = 1,
       .max = kMaxLayerSpan},
  };
  type.build = [](const LayerOptions& o, const Shape&) -> std::shared_ptr<Layer> {
    return std::make_shared<Crop1D>(int_option(o, "length"));
  };
  return type;
}

}  // namespace strand
