// Parameter-free layers: the activations (ReLU, Sigmoid, Softmax, Tanh, Exp, Softplus, GELU),
// GlobalMaxPool1D and Flatten.
#pragma once

#include "layers/layer.h"
#include "ops/elementwise.h"

namespace strand {

/// max(x, 0), elementwise.
class ReLU : public Layer {
 public:
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override { return input; }
  std::string type_name() const override { return "ReLU"; }
};

/// 1 / (1 + exp(-x)), elementwise.
class Sigmoid : public Layer {
 public:
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override { return input; }
  std::string type_name() const override { return "Sigmoid"; }
};

/// softmax over the last dimension: class probabilities of (B, K) logits, or a profile's
/// distribution over positions for (B, S, L).
class Softmax : public Layer {
 public:
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override { return input; }
  std::string type_name() const override { return "Softmax"; }
};

/// An elementwise activation f applied by `function` (Tanh, Exp, Softplus, GELU): one class
/// template instead of four copies of the same three members.
template <Var (*function)(const Var&), const char* kTypeName>
class ElementwiseActivation : public Layer {
 public:
  Var forward(const Var& x) override { return function(x); }
  Shape output_shape(const Shape& input) const override { return input; }
  std::string type_name() const override { return kTypeName; }
};

inline constexpr char kTanhName[] = "Tanh";
inline constexpr char kExpName[] = "Exp";
inline constexpr char kSoftplusName[] = "Softplus";
inline constexpr char kGeluName[] = "GELU";
/// tanh(x).
using Tanh = ElementwiseActivation<&tanh, kTanhName>;
/// exp(x): positive outputs, e.g. a count-rate head.
using Exp = ElementwiseActivation<&exp, kExpName>;
/// log(1 + exp(x)): smooth, positive.
using Softplus = ElementwiseActivation<&softplus, kSoftplusName>;
/// x * Phi(x), the exact GELU.
using GELU = ElementwiseActivation<&gelu, kGeluName>;

/// The Activation a final layer is (Sigmoid, Softmax, Exp), or kIdentity for any other layer:
/// models keep such a last layer apart (layers/model.h).
Activation final_activation_of(const Layer& layer);

/// (B, C, L) -> (B, C): the maximum over positions of each channel.
class GlobalMaxPool1D : public Layer {
 public:
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "GlobalMaxPool1D"; }
};

/// (B, d1, d2, ...) -> (B, d1 * d2 * ...).
class Flatten : public Layer {
 public:
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "Flatten"; }
};

}  // namespace strand
