// Layer: a Model with one input and one output, the unit Sequential chains and Graph wires.
// Shapes in output_shape() exclude the batch dimension: a Conv1D sees (C, L) or, for base codes,
// (L). Merge layers (Add, Concat) take several inputs through forward_inputs().
#pragma once

#include <span>
#include <string>
#include <vector>

#include "autograd/var.h"
#include "layers/model.h"

namespace strand {

/// A Model with one input (the sequence) and one output; what Sequential chains.
class Layer : public Model {
 public:
  /// Applies the layer to a batch `x` (batch dimension first).
  virtual Var forward(const Var& x) = 0;
  /// The per-sample output shape for a per-sample input shape; throws naming the layer when
  /// the input cannot feed it.
  virtual Shape output_shape(const Shape& input) const = 0;
  /// "Conv1D", "Dense", ... as shown by summary().
  std::string type_name() const override = 0;
  /// Same as forward(x).
  Var operator()(const Var& x) { return forward(x); }

  /// How many inputs the layer takes: 1, or kTwoOrMoreInputs for merges (Add, Concat).
  virtual int input_count() const { return 1; }
  /// Applies the layer to its inputs: exactly one for most layers (forward()); merges take
  /// several. Throws naming the layer when the count is wrong.
  virtual Var forward_inputs(std::span<const Var> inputs);
  /// The per-sample output shape for the per-sample shapes of its inputs (output_shape() for
  /// one input).
  virtual Shape output_shape_of(std::span<const Shape> inputs) const;

  /// As a Model: forward(inputs.sequence).
  std::vector<Var> forward_outputs(const ModelInputs& inputs) override;
  /// As a Model: output_shape(inputs.sequence).
  std::vector<Shape> output_shapes(const InputShapes& inputs) const override;

 protected:
  /// Throws unless `count` inputs suit input_count().
  void check_input_count(size_t count) const;
};

/// Layer::input_count() of merge layers: two or more inputs.
inline constexpr int kTwoOrMoreInputs = -1;

}  // namespace strand
