// What an explanation explains: one number per sequence, taken from one of a model's outputs,
// and the model's evaluation on base codes. Every method of explain/ (mutagenesis, DeepLIFT/SHAP,
// gradients, marginalisation) explains such a target, and the variant scores use the same
// batched evaluation.
//
// The tasks of an output: the columns of a (T) output, or the tracks of an (S, Lp) profile
// output. A task's value is the output before its final activation (logits, log-rates) unless
// `activation` asks for predictions; a profile output ending in Softmax is summarised as
// bpnet-lite and chrombpnet explain profiles: sum over positions of softmax(z) * (z - mean(z)),
// with the softmax held constant (the mean-centred logits weighted by the predicted
// distribution); any other (S, Lp) output by its sum over positions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "autograd/var.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::explain {

/// One number per sequence from a model's output.
struct Target {
  size_t output = 0;        ///< the output's index in Model::output_names()
  int64_t task = -1;        ///< the task's index; -1: the sum over the output's tasks
  bool activation = false;  ///< after the output's final Sigmoid or Exp (predictions), not before
};

/// The tasks of `target.output` for sequences of `length` bases: their count, and what each
/// is ("column", "profile track" or "track total"), checked against the model. Throws naming
/// the output when its per-sample shape is neither (T) nor (S, Lp), when `target.task` is out of
/// range, or when a profile output is asked for its activation.
struct TargetShape {
  int64_t tasks = 0;        ///< T, or S for a profile output
  bool profile = false;     ///< an (S, Lp) output ending in Softmax: the profile summary
  std::string output_name;  ///< the output's name
};
TargetShape check_target(const Model& model, int64_t length, const Target& target);

/// Every task's value for the batch `sequence` ((B, L) codes or (B, 4, L) one-hot): (B, T),
/// differentiable. The model's mode is left as it is (explain/ runs it in evaluation mode).
Var task_values(Model& model, const Var& sequence, const Target& target);

/// The target's value for each sequence of the batch: (B), differentiable.
Var target_values(Model& model, const Var& sequence, const Target& target);

/// task_values() of an output's value `output` ((B, T), or (B, S, Lp)) as forward_outputs()
/// gives it, before its final `activation`.
Var output_task_values(const Var& output, Activation activation, const Target& target);

/// The target's value (B) from every task's value (B, T): one column, or their sum.
Var select_target(const Var& task_values, const Target& target);

/// The target's value for each sequence of `codes` ((N, L) uint8), in batches of `batch_size`
/// through the model in evaluation mode without gradients (its mode restored after): (N) float.
/// With target.task -1 and `each_task`, every task's value instead: (N, T). The batches run on
/// the OpenMP threads side by side (alternates/parallel_units.h).
Tensor predict_target(Model& model, const Tensor& codes, const Target& target,
                      int64_t batch_size = 256, bool each_task = false);

/// Evaluation mode and frozen parameters for the scope of an explanation (gradients flow to the
/// input only); both restored at the end.
class ExplainScope {
 public:
  explicit ExplainScope(Model& model);
  ~ExplainScope();
  ExplainScope(const ExplainScope&) = delete;
  ExplainScope& operator=(const ExplainScope&) = delete;

 private:
  Model& model_;
  bool was_training_;
  std::vector<std::pair<Var, bool>> requires_grad_;
};

}  // namespace strand::explain
