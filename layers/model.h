// Model: what fit(), evaluate() and predict() train and run. A Module that maps a batch's inputs
// (the DNA sequence and, for some models, extra per-base tracks such as a control signal) to one
// or more named outputs ("heads"). Layer (one input, one output) is the simplest Model and
// Sequential the usual one; Graph (layers/graph.h) wires layers by name (residual blocks,
// concatenation, several heads); a researcher's own model derives from Model and composes
// branches in forward_outputs() with any ops.
//
// Each output's last function (Sigmoid, Softmax, Exp) is kept apart from the rest: the
// outputs come before it (logits, log-rates), so that a loss can train on them in its
// numerically stable form (BCE from logits, log-softmax cross-entropy, Poisson NLL of
// log-rates), and predictions apply it.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "autograd/var.h"
#include "core/shape.h"
#include "layers/module.h"

namespace strand {

/// The function a model applies last to an output (predictions apply it; losses that include
/// it, such as BCE from logits, train on what comes before it).
enum class Activation {
  kIdentity,  ///< none: the output is the prediction
  kSigmoid,   ///< 1 / (1 + exp(-x)), elementwise
  kSoftmax,   ///< softmax over the last dimension (classes, or the positions of a profile)
  kExp,       ///< exp(x): a rate from a log-rate
};

/// "identity", "sigmoid", "softmax" or "exp".
const char* activation_name(Activation activation);

/// Applies `activation` (differentiable).
Var apply_activation(Activation activation, const Var& x);

/// The name of a model's sequence input, and the name of the control track input.
inline constexpr char kSequenceInput[] = "sequence";
inline constexpr char kControlInput[] = "control";

/// A batch's inputs: the sequence, and named per-base tracks.
struct ModelInputs {
  /// (B, L) uint8 base codes, or (B, 4, L) one-hot floats.
  Var sequence;
  /// Extra inputs by name, e.g. "control": (B, S, L) float signal (BPNet's bias tracks).
  std::map<std::string, Var> tracks;

  /// The input called `name`: "sequence" or a track; throws naming the inputs there are.
  const Var& get(const std::string& name) const;
};

/// Per-sample shapes of a model's inputs (no batch dimension).
struct InputShapes {
  /// {L} for base codes, {4, L} for one-hot input.
  Shape sequence;
  /// Shapes of the extra inputs by name, e.g. "control": {S, L}.
  std::map<std::string, Shape> tracks;

  /// The shape of the input called `name`; throws naming the inputs there are.
  const Shape& get(const std::string& name) const;
};

/// A Module from a batch's inputs to one or more named outputs.
class Model : public Module {
 public:
  /// The outputs' names, in the order forward_outputs() returns them. Default: {"output"}.
  virtual std::vector<std::string> output_names() const { return {"output"}; }

  /// Every output before its final activation (output_activation()): logits for a Sigmoid or
  /// Softmax output, log-rates for an Exp one, the values themselves otherwise.
  virtual std::vector<Var> forward_outputs(const ModelInputs& inputs) = 0;

  /// The final activation of output `index`. Default: kIdentity.
  virtual Activation output_activation(size_t /*index*/) const { return Activation::kIdentity; }

  /// The outputs as predictions: forward_outputs() through each final activation.
  std::vector<Var> forward_predictions(const ModelInputs& inputs);

  /// The per-sample shapes of forward_outputs() for inputs of `inputs`. Default: one forward
  /// pass on a zero sample, in evaluation mode and without gradients.
  virtual std::vector<Shape> output_shapes(const InputShapes& inputs) const;

  /// A Keras-like table of the model for inputs of `inputs`. Default: every submodule with its
  /// type and parameter count, then each output's shape, then the parameter totals.
  virtual std::string summary(const InputShapes& inputs) const;

  /// "Sequential", "Graph", "Conv1D", ...; for a researcher's own model its C++ class name.
  virtual std::string type_name() const;

  /// The index of the output called `name`; throws naming the outputs there are.
  size_t output_index(const std::string& name) const;
};

/// The parameter totals that end every summary table: total, trainable and non-trainable
/// (buffers and frozen parameters) counts.
std::string parameter_totals(const Module& module);

/// The per-sample shape as a Keras summary shows it: (None, 16, 485).
std::string batched_shape_text(const Shape& shape);

}  // namespace strand
