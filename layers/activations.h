// Parameter-free layers: ReLU, Sigmoid, GlobalMaxPool1D and Flatten.
#pragma once

#include "layers/layer.h"

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
