// Objective: what fit() minimises, for a model with one output or several. A weighted sum of
// terms, each pairing a model output with a loss and a target taken from the batch: BPNet, for
// example, trains its "profile" output with the multinomial NLL against the per-position counts
// and its "counts" output with the MSE against log(1 + total counts), weighted by lambda.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layers/losses.h"
#include "layers/model.h"
#include "train/training_batch.h"

namespace strand::train {

/// Where a term's target comes from in a batch.
enum class Target {
  kLabels,          ///< the labels (B, T), with their mask
  kProfile,         ///< per-position counts (B, S, Lp)
  kLogCounts,       ///< log(1 + counts summed over positions), per track: (B, S)
  kLogTotalCounts,  ///< log(1 + counts summed over tracks and positions): (B, 1)
};

/// "labels", "profile", "log_counts" or "log_total_counts".
const char* target_name(Target target);
/// The Target called `name`; throws listing the names.
Target parse_target(const std::string& name);

/// One term: `weight` x `loss`(output `output`, target `target`).
struct LossTerm {
  std::string output{};  ///< the model output's name; empty: the model's only (first) output
  std::shared_ptr<const Loss> loss{};
  double weight = 1.0;
  Target target = Target::kLabels;
  /// How evaluation scores the term's predictions; unset: the loss's target kind (MSE on 0/1
  /// labels is scored as binary when this says kBinary).
  std::optional<TargetKind> scored_as{};

  /// scored_as, or the loss's target kind.
  TargetKind kind() const { return scored_as.value_or(loss->target_kind()); }
};

/// The weighted sum of its terms.
class Objective {
 public:
  /// Terms with a loss each and finite weights > 0; at least one.
  explicit Objective(std::vector<LossTerm> terms);
  /// `loss` of the model's first output against the labels, scored as `scored_as` (default: the
  /// loss's target kind). Not owned: `loss` must outlive the objective.
  static Objective of(const Loss& loss, std::optional<TargetKind> scored_as = std::nullopt);

  const std::vector<LossTerm>& terms() const { return terms_; }

  /// Whether fit() counts a training accuracy: the first term scores binary labels.
  bool has_training_accuracy() const {
    return terms_.front().target == Target::kLabels && terms_.front().kind() == TargetKind::kBinary;
  }

  /// The term's model output index, checked against `model`: its output exists, and its final
  /// activation suits the loss (see term_input()). Throws naming the term and what is expected.
  std::vector<size_t> bind(const Model& model) const;

  /// The batch's target for `term` (on the batch's device, the model's dtype `dtype`).
  static Tensor target_of(const LossTerm& term, const TrainingBatch& batch, DType dtype);

  /// The loss of one batch: sum over terms of weight x loss, from the model's forward_outputs()
  /// `outputs` (indexed by bind()'s result `bound`). `term_losses` (if not null) receives each
  /// term's unweighted loss.
  Var loss(const Model& model, const std::vector<size_t>& bound, const std::vector<Var>& outputs,
           const TrainingBatch& batch, std::vector<Var>* term_losses = nullptr) const;

 private:
  std::vector<LossTerm> terms_;
};

/// What a loss trains on, from a model output before its final activation `activation`: the
/// output itself when the loss applies that activation (BCE from logits after a Sigmoid); the
/// activated output for a loss on predictions (MSE after a Sigmoid). Throws when the loss applies
/// an activation the output does not end in.
Var term_input(const Var& output, Activation activation, const Loss& loss);

/// What `loss` trains on for a one-input model's first output on `sequence`: term_input() of
/// forward_outputs() (the logits of a model ending in Sigmoid, for BCE).
Var training_output(Model& model, const Loss& loss, const Var& sequence);

/// The error message of term_input()'s check, or empty when `activation` suits `loss`.
std::string activation_mismatch(Activation activation, const Loss& loss);

}  // namespace strand::train
