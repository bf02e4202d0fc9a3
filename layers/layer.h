// Layer: a Module with one input and one output, the unit Sequential chains. Shapes in
// output_shape() exclude the batch dimension: a Conv1D sees (C, L) or, for base codes, (L).
#pragma once

#include <string>

#include "autograd/var.h"
#include "layers/module.h"

namespace strand {

/// A Module with one input and one output; what Sequential chains.
class Layer : public Module {
 public:
  /// Applies the layer to a batch `x` (batch dimension first).
  virtual Var forward(const Var& x) = 0;
  /// The per-sample output shape for a per-sample input shape; throws naming the layer when
  /// the input cannot feed it.
  virtual Shape output_shape(const Shape& input) const = 0;
  /// "Conv1D", "Dense", ... as shown by summary().
  virtual std::string type_name() const = 0;
  /// Same as forward(x).
  Var operator()(const Var& x) { return forward(x); }
};

}  // namespace strand
