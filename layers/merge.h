// Merge layers: several inputs into one. Add sums same-shaped inputs (residual connections);
// Concat joins inputs along the channel dimension; LogSumExp adds quantities given as logs
// (ChromBPNet's counts: log(exp(a) + exp(b)) of two heads' log counts). They are nodes of a Graph
// (layers/graph.h) or calls inside a researcher's own Model; alone, with one input, they refuse.
#pragma once

#include <span>

#include "layers/layer.h"

namespace strand {

/// x_1 + x_2 + ... elementwise; every input has the same shape (a residual block adds its
/// input to its body's output).
class Add : public Layer {
 public:
  int input_count() const override { return kTwoOrMoreInputs; }
  Var forward_inputs(std::span<const Var> inputs) override;
  Shape output_shape_of(std::span<const Shape> inputs) const override;
  /// One input is not a merge: throws.
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "Add"; }
};

/// (C_1, L), (C_2, L), ... -> (C_1 + C_2 + ..., L), or (C_1), (C_2), ... -> (C_1 + C_2 + ...):
/// inputs joined along channels (dimension 1 of the batch).
class Concat : public Layer {
 public:
  int input_count() const override { return kTwoOrMoreInputs; }
  Var forward_inputs(std::span<const Var> inputs) override;
  Shape output_shape_of(std::span<const Shape> inputs) const override;
  /// One input is not a merge: throws.
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "Concat"; }
};

/// log(exp(x_1) + exp(x_2) + ...) elementwise, of same-shaped inputs: the log of a sum of
/// quantities each given as its log (ChromBPNet adds its bias model's counts to its
/// accessibility model's this way). Stable for inputs of any size: a + softplus(b - a) per pair.
class LogSumExp : public Layer {
 public:
  int input_count() const override { return kTwoOrMoreInputs; }
  Var forward_inputs(std::span<const Var> inputs) override;
  Shape output_shape_of(std::span<const Shape> inputs) const override;
  /// One input is not a merge: throws.
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "LogSumExp"; }
};

}  // namespace strand
