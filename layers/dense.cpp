// Dense layer.
#include "layers/dense.h"

#include <fmt/format.h>

#include <cmath>

#include "layers/layer_catalog.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"
#include "ops/shape.h"

namespace strand {

Dense::Dense(int64_t in_features, int64_t out_features, bool bias, Generator& generator)
    : in_features_(in_features), out_features_(out_features) {
  STRAND_CHECK(in_features > 0 && out_features > 0,
               "Dense: feature counts must be positive (got in={}, out={})", in_features,
               out_features);
  weight_ = register_parameter("weight", Tensor::zeros({out_features, in_features}));
  if (bias) bias_ = register_parameter("bias", Tensor::zeros({out_features}));
  reset_parameters(generator);
}

void Dense::reset_parameters(Generator& generator) {
  const double limit = std::sqrt(6.0 / static_cast<double>(in_features_ + out_features_));
  const Tensor& current = weight_.value();
  set_parameter("weight", Tensor::uniform(current.shape(), -limit, limit, generator,
                                          current.dtype(), current.device()));
  if (bias_.defined()) bias_.mutable_value().zero_();
}

Shape Dense::output_shape(const Shape& input) const {
  STRAND_CHECK(input.size() == 1 && input[0] == in_features_,
               "Dense({}->{}): expected input ({},), got {}", in_features_, out_features_,
               in_features_, shape_to_string(input));
  return {out_features_};
}

Var Dense::forward(const Var& x) {
  STRAND_CHECK(x.dim() == 2 && x.size(1) == in_features_,
               "Dense({}->{}): expected input (B, {}), got {}", in_features_, out_features_,
               in_features_, x.value().describe());
  Var y = matmul(x, transpose(weight_, 0, 1));
  return bias_.defined() ? add(y, bias_) : y;
}

LayerType dense_layer_type() {
  LayerType type;
  type.name = "Dense";
  type.help = "fully connected layer on flat features";
  type.options = {
      {.name = "units",
       .help = "output features",
       .required = true,
       .min = 1,
       .max = kMaxLayerWidth},
      {.name = "use_bias",
       .kind = LayerOption::Kind::kBool,
       .help = "add a learned bias",
       .default_value = true},
  };
  type.build = [](const LayerOptions& o, const Shape& input) -> std::shared_ptr<Layer> {
    STRAND_CHECK(input.size() == 1,
                 "expects a flat input (features), got ({}): put GlobalMaxPool1D or Flatten "
                 "before it",
                 fmt::join(input, ", "));
    return std::make_shared<Dense>(input[0], int_option(o, "units"), bool_option(o, "use_bias"));
  };
  return type;
}

}  // namespace strand
