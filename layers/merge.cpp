// Add, Concat and LogSumExp, and their catalog entries.
#include "layers/merge.h"

#include <fmt/format.h>

#include <vector>

#include "layers/layer_catalog.h"
#include "ops/elementwise.h"
#include "ops/shape.h"

namespace strand {
namespace {

std::string shapes_text(std::span<const Shape> shapes) {
  std::vector<std::string> parts;
  for (const Shape& shape : shapes) parts.push_back(shape_to_string(shape));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

Var Add::forward_inputs(std::span<const Var> inputs) {
  check_input_count(inputs.size());
  Var sum = add(inputs[0], inputs[1]);
  for (size_t i = 2; i < inputs.size(); ++i) sum = add(sum, inputs[i]);
  return sum;
}

Shape Add::output_shape_of(std::span<const Shape> inputs) const {
  check_input_count(inputs.size());
  for (const Shape& shape : inputs) {
    STRAND_CHECK(shape == inputs[0], "Add: every input must have the same shape, got {}",
                 shapes_text(inputs));
  }
  return inputs[0];
}

Var Add::forward(const Var&) {
  throw Error("Add takes two or more inputs: use it in a Graph (its 'inputs' list)");
}

Shape Add::output_shape(const Shape&) const {
  throw Error("Add takes two or more inputs: use it in a Graph (its 'inputs' list)");
}

Var Concat::forward_inputs(std::span<const Var> inputs) {
  check_input_count(inputs.size());
  return concat(std::vector<Var>(inputs.begin(), inputs.end()), 1);
}

Shape Concat::output_shape_of(std::span<const Shape> inputs) const {
  check_input_count(inputs.size());
  Shape out = inputs[0];
  STRAND_CHECK(!out.empty(), "Concat: inputs must have channels, got {}", shapes_text(inputs));
  out[0] = 0;
  for (const Shape& shape : inputs) {
    bool fits = shape.size() == inputs[0].size();
    for (size_t d = 1; fits && d < shape.size(); ++d) fits = shape[d] == inputs[0][d];
    STRAND_CHECK(fits, "Concat: inputs must agree in every dimension but the channels, got {}",
                 shapes_text(inputs));
    out[0] += shape[0];
  }
  return out;
}

Var Concat::forward(const Var&) {
  throw Error("Concat takes two or more inputs: use it in a Graph (its 'inputs' list)");
}

Shape Concat::output_shape(const Shape&) const {
  throw Error("Concat takes two or more inputs: use it in a Graph (its 'inputs' list)");
}

Var LogSumExp::forward_inputs(std::span<const Var> inputs) {
  check_input_count(inputs.size());
  // log(e^a + e^b) = a + log(1 + e^(b - a)) = a + softplus(b - a); softplus is stable both ways,
  // so no exp overflows whatever the inputs' sizes, and the gradient is sigmoid(b - a) for b.
  Var total = inputs[0];
  for (size_t i = 1; i < inputs.size(); ++i) {
    total = add(total, softplus(sub(inputs[i], total)));
  }
  return total;
}

Shape LogSumExp::output_shape_of(std::span<const Shape> inputs) const {
  check_input_count(inputs.size());
  for (const Shape& shape : inputs) {
    STRAND_CHECK(shape == inputs[0], "LogSumExp: every input must have the same shape, got {}",
                 shapes_text(inputs));
  }
  return inputs[0];
}

Var LogSumExp::forward(const Var&) {
  throw Error("LogSumExp takes two or more inputs: use it in a Graph (its 'inputs' list)");
}

Shape LogSumExp::output_shape(const Shape&) const {
  throw Error("LogSumExp takes two or more inputs: use it in a Graph (its 'inputs' list)");
}

LayerType add_layer_type() {
  LayerType type;
  type.name = "Add";
  type.help = "sum of two or more same-shaped inputs (residual connections; graph models)";
  type.inputs = kTwoOrMoreInputs;
  type.build = [](const LayerOptions&, const Shape&) -> std::shared_ptr<Layer> {
    return std::make_shared<Add>();
  };
  return type;
}

LayerType concat_layer_type() {
  LayerType type;
  type.name = "Concat";
  type.help = "two or more inputs joined along channels (graph models)";
  type.inputs = kTwoOrMoreInputs;
  type.build = [](const LayerOptions&, const Shape&) -> std::shared_ptr<Layer> {
    return std::make_shared<Concat>();
  };
  return type;
}

LayerType log_sum_exp_layer_type() {
  LayerType type;
  type.name = "LogSumExp";
  type.help =
      "log(exp(x_1) + exp(x_2) + ...) of two or more same-shaped inputs: adds counts given as "
      "logs (ChromBPNet's bias and accessibility counts; graph models)";
  type.inputs = kTwoOrMoreInputs;
  type.build = [](const LayerOptions&, const Shape&) -> std::shared_ptr<Layer> {
    return std::make_shared<LogSumExp>();
  };
  return type;
}

}  // namespace strand
