// Objective: terms bound to model outputs, their targets and the batch loss.
#include "train/objective.h"

#include <fmt/format.h>

#include <cmath>

#include "ops/elementwise.h"
#include "ops/reduction.h"

namespace strand::train {

const char* target_name(Target target) {
  switch (target) {
    case Target::kLabels:
      return "labels";
    case Target::kProfile:
      return "profile";
    case Target::kLogCounts:
      return "log_counts";
    case Target::kLogTotalCounts:
      return "log_total_counts";
  }
  return "labels";
}

Target parse_target(const std::string& name) {
  for (const Target target :
       {Target::kLabels, Target::kProfile, Target::kLogCounts, Target::kLogTotalCounts}) {
    if (name == target_name(target)) return target;
  }
  throw Error(fmt::format(
      "unknown target '{}'; expected labels, profile, log_counts or log_total_counts", name));
}

Objective::Objective(std::vector<LossTerm> terms) : terms_(std::move(terms)) {
  STRAND_CHECK(!terms_.empty(), "objective: no loss terms");
  for (size_t i = 0; i < terms_.size(); ++i) {
    STRAND_CHECK(terms_[i].loss != nullptr, "objective: term {} has no loss", i);
    STRAND_CHECK(std::isfinite(terms_[i].weight) && terms_[i].weight > 0.0,
                 "objective: term {} ({}) has weight {}, expected a finite number > 0", i,
                 terms_[i].loss->name(), terms_[i].weight);
  }
}

Objective Objective::of(const Loss& loss, std::optional<TargetKind> scored_as) {
  // Not owned: an aliasing pointer with nothing to delete.
  return Objective({LossTerm{"", std::shared_ptr<const Loss>(std::shared_ptr<const Loss>(), &loss),
                             1.0, Target::kLabels, scored_as}});
}

std::string activation_mismatch(Activation activation, const Loss& loss) {
  const Activation applied = loss.applies_activation();
  if (applied == activation || applied == Activation::kIdentity) return "";
  const char* layer = applied == Activation::kSigmoid   ? "Sigmoid"
                      : applied == Activation::kSoftmax ? "Softmax"
                                                        : "Exp";
  return fmt::format(
      "loss '{}' applies a {} itself, so the output must end in {} (training feeds it what comes "
      "before; predictions apply it){}",
      loss.name(), activation_name(applied), layer,
      activation == Activation::kIdentity
          ? ""
          : fmt::format(", but it ends in {}", activation_name(activation)));
}

Var term_input(const Var& output, Activation activation, const Loss& loss) {
  const std::string mismatch = activation_mismatch(activation, loss);
  STRAND_CHECK(mismatch.empty(), "{}", mismatch);
  return loss.applies_activation() == activation ? output : apply_activation(activation, output);
}

Var training_output(Model& model, const Loss& loss, const Var& sequence) {
  ModelInputs inputs;
  inputs.sequence = sequence;
  return term_input(model.forward_outputs(inputs).at(0), model.output_activation(0), loss);
}

std::vector<size_t> Objective::bind(const Model& model) const {
  std::vector<size_t> bound;
  const std::vector<std::string> names = model.output_names();
  for (size_t i = 0; i < terms_.size(); ++i) {
    const LossTerm& term = terms_[i];
    const size_t index = term.output.empty() ? 0 : model.output_index(term.output);
    STRAND_CHECK(index < names.size(), "objective: the model has no outputs");
    const std::string mismatch = activation_mismatch(model.output_activation(index), *term.loss);
    STRAND_CHECK(mismatch.empty(), "output '{}': {}", names[index], mismatch);
    bound.push_back(index);
  }
  return bound;
}

Tensor Objective::target_of(const LossTerm& term, const TrainingBatch& batch, DType dtype) {
  if (term.target == Target::kLabels) return batch.labels.to(dtype);
  STRAND_CHECK(batch.profile.defined(),
               "loss '{}' trains on the target '{}', but the data has no per-position profile "
               "(give profile signal tracks)",
               term.loss->name(), target_name(term.target));
  const Tensor profile = batch.profile.to(dtype);  // (B, S, Lp)
  switch (term.target) {
    case Target::kProfile:
      return profile;
    case Target::kLogCounts:
      return ops::log(ops::affine(ops::sum(profile, {2}), 1.0, 1.0));  // (B, S)
    case Target::kLogTotalCounts:
      return ops::log(ops::affine(ops::sum(profile, {1, 2}, /*keepdim=*/false).reshape({-1, 1}),
                                  1.0, 1.0));  // (B, 1)
    case Target::kLabels:
      break;
  }
  return batch.labels.to(dtype);
}

Var Objective::loss(const Model& model, const std::vector<size_t>& bound,
                    const std::vector<Var>& outputs, const TrainingBatch& batch,
                    std::vector<Var>* term_losses) const {
  Var total;
  if (term_losses != nullptr) term_losses->clear();
  for (size_t i = 0; i < terms_.size(); ++i) {
    const LossTerm& term = terms_[i];
    const Var& output = outputs.at(bound[i]);
    const Var input = term_input(output, model.output_activation(bound[i]), *term.loss);
    const Var target(target_of(term, batch, output.dtype()));
    STRAND_CHECK(
        input.shape() == target.shape(), "output '{}' {} does not match its target '{}' {}: {}",
        model.output_names()[bound[i]], input.value().describe(), target_name(term.target),
        target.value().describe(),
        term.target == Target::kLabels ? "the last layer must have one unit per label column"
                                       : "the output must have the target's shape");
    // A batch without a label mask (hand-made batches) counts every label.
    const Var value = term.target == Target::kLabels && batch.label_mask.defined()
                          ? term.loss->masked(input, target, batch.label_mask)
                          : (*term.loss)(input, target);
    if (term_losses != nullptr) term_losses->push_back(value);
    const Var weighted = term.weight == 1.0 ? value : value * term.weight;
    total = total.defined() ? total + weighted : weighted;
  }
  return total;
}

}  // namespace strand::train
