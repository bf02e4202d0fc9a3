// Dropout layer and its catalog entry.
#include "layers/dropout.h"

#include "layers/layer_catalog.h"

namespace strand {

Dropout::Dropout(double rate) : Dropout(rate, default_generator().next_u64()) {}

Dropout::Dropout(double rate, uint64_t seed) : rate_(rate), seed_(seed) {
  STRAND_CHECK(rate >= 0.0 && rate < 1.0, "Dropout: rate must be in [0, 1), got {}", rate);
}

void Dropout::set_step_tensor(const Tensor& step) {
  STRAND_CHECK(!step.defined() || (step.dtype() == DType::kInt64 && step.numel() == 1),
               "Dropout: the step tensor must be one int64, got {}", step.describe());
  step_tensor_ = step;
}

Var Dropout::forward(const Var& x) {
  if (!is_training() || rate_ == 0.0) return x;
  const DropoutMask mask{rate_, seed_, static_cast<uint64_t>(step_)};
  ++step_;  // the next forward pass, unless fit() sets the step first
  return dropout(x, mask, step_tensor_);
}

LayerType dropout_layer_type() {
  LayerType type;
  type.name = "Dropout";
  type.help = "drops elements with probability rate in training, none in evaluation";
  type.options = {
      {.name = "rate",
       .kind = LayerOption::Kind::kReal,
       .help = "probability of dropping an element",
       .required = true,
       .real_min = 0.0,
       .real_max = 1.0,
       .real_max_open = true},
  };
  type.build = [](const LayerOptions& o, const Shape&) -> std::shared_ptr<Layer> {
    return std::make_shared<Dropout>(real_option(o, "rate"));
  };
  return type;
}

}  // namespace strand
