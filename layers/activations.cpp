// Parameter-free layers.
#include "layers/activations.h"

#include "layers/layer_catalog.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "ops/softmax.h"

namespace strand {

Var ReLU::forward(const Var& x) { return relu(x); }

Var Sigmoid::forward(const Var& x) { return sigmoid(x); }

Var Softmax::forward(const Var& x) { return softmax(x, x.dim() - 1); }

Activation final_activation_of(const Layer& layer) {
  if (dynamic_cast<const Sigmoid*>(&layer) != nullptr) return Activation::kSigmoid;
  if (dynamic_cast<const Softmax*>(&layer) != nullptr) return Activation::kSoftmax;
  if (dynamic_cast<const Exp*>(&layer) != nullptr) return Activation::kExp;
  return Activation::kIdentity;
}

Var GlobalMaxPool1D::forward(const Var& x) { return global_max_pool1d(x); }

Shape GlobalMaxPool1D::output_shape(const Shape& input) const {
  STRAND_CHECK(input.size() == 2, "GlobalMaxPool1D: expected input (C, L), got {}",
               shape_to_string(input));
  return {input[0]};
}

Var Flatten::forward(const Var& x) { return reshape(x, {x.size(0), -1}); }

Shape Flatten::output_shape(const Shape& input) const { return {numel(input)}; }

namespace {

// A layer type without options.
template <typename L>
LayerType plain_layer_type(std::string name, std::string help) {
  LayerType type;
  type.name = std::move(name);
  type.help = std::move(help);
  type.build = [](const LayerOptions&, const Shape&) -> std::shared_ptr<Layer> {
    return std::make_shared<L>();
  };
  return type;
}

}  // namespace

LayerType relu_layer_type() { return plain_layer_type<ReLU>("ReLU", "max(x, 0)"); }
LayerType sigmoid_layer_type() {
  return plain_layer_type<Sigmoid>("Sigmoid", "1 / (1 + exp(-x)); training takes logits");
}
LayerType softmax_layer_type() {
  return plain_layer_type<Softmax>(
      "Softmax", "softmax over the last dimension (classes, or a profile's positions)");
}
LayerType tanh_layer_type() { return plain_layer_type<Tanh>("Tanh", "tanh(x)"); }
LayerType exp_layer_type() { return plain_layer_type<Exp>("Exp", "exp(x): positive outputs"); }
LayerType softplus_layer_type() {
  return plain_layer_type<Softplus>("Softplus", "log(1 + exp(x)): smooth positive outputs");
}
LayerType gelu_layer_type() { return plain_layer_type<GELU>("GELU", "x * Phi(x) (exact GELU)"); }
LayerType global_max_pool1d_layer_type() {
  return plain_layer_type<GlobalMaxPool1D>("GlobalMaxPool1D", "(C, L) -> (C): max over positions");
}
LayerType flatten_layer_type() { return plain_layer_type<Flatten>("Flatten", "(C, L) -> (C * L)"); }

}  // namespace strand
