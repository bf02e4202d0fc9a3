// Losses: what a model output is trained against. Each names the final activation it applies
// itself (BCE from logits includes the sigmoid, the multinomial NLL a softmax over positions, the
// Poisson NLL of log-rates an exp), so training feeds it the output before that activation
// (layers/model.h), and the kind of target it scores, which picks the evaluation metrics.
#pragma once

#include <string>
#include <vector>

#include "layers/model.h"
#include "ops/loss.h"

namespace strand {

/// What a loss's targets are, which decides how outputs are scored (train/evaluation.h).
enum class TargetKind {
  kBinary,       ///< 0/1 labels per task: accuracy, auROC, auPRC
  kReal,         ///< real values per task (counts, signal): Pearson and Spearman
  kCategorical,  ///< one class of K per example (one-hot rows): accuracy
  kProfile,      ///< per-position counts (B, S, L): profile Pearson correlation
};

/// A loss: a scalar Var from a prediction and a target of the same shape.
class Loss {
 public:
  virtual ~Loss() = default;
  /// The mean loss over every element.
  virtual Var operator()(const Var& prediction, const Var& target) const = 0;
  /// The Keras name, e.g. "binary_crossentropy".
  virtual std::string name() const = 0;
  /// The final activation the loss applies itself, so it takes that activation's input:
  /// kSigmoid for BCE from logits, kIdentity (the default) for a loss on predictions.
  virtual Activation applies_activation() const { return Activation::kIdentity; }
  /// True when the loss expects logits (pre-sigmoid scores) rather than probabilities.
  bool takes_logits() const { return applies_activation() == Activation::kSigmoid; }
  /// What the targets are (the default: real values).
  virtual TargetKind target_kind() const { return TargetKind::kReal; }
  /// The loss of one training batch with its label mask (same shape as target, 1 = valid,
  /// 0 = missing). A loss that has no masked form ignores the mask (the default).
  virtual Var masked(const Var& prediction, const Var& target, const Tensor& /*mask*/) const {
    return (*this)(prediction, target);
  }
};

/// Mean BCE of logits: max(x,0) - x y + log(1 + exp(-|x|)). Feed it the model's output before
/// its final Sigmoid (training does this for models that end in Sigmoid). With task weights
/// (one per output column), each task's terms are weighted (multi-task Basset/DeepSEA data with
/// rare tasks).
class BinaryCrossEntropy : public Loss {
 public:
  BinaryCrossEntropy() = default;
  /// Per-task weights (T), all > 0; empty: every task weighs 1.
  explicit BinaryCrossEntropy(std::vector<double> task_weights);
  Var operator()(const Var& logits, const Var& target) const override;
  std::string name() const override { return "binary_crossentropy"; }
  Activation applies_activation() const override { return Activation::kSigmoid; }
  TargetKind target_kind() const override { return TargetKind::kBinary; }
  /// Missing labels carry no loss: the mean is over the valid ones (weighted per task).
  Var masked(const Var& logits, const Var& target, const Tensor& mask) const override;
  /// The per-task weights (empty: all 1).
  const std::vector<double>& task_weights() const { return task_weights_; }

 private:
  std::vector<double> task_weights_;
  // The weights as a tensor on the device and in the dtype of the last call: made once, so a
  // GPU step copies nothing from the host (a CUDA graph cannot capture such a copy).
  mutable Tensor weights_on_device_;
};

/// Mean of (prediction - target)^2 over every element (the valid ones when masked).
class MeanSquaredError : public Loss {
 public:
  Var operator()(const Var& prediction, const Var& target) const override {
    return mse(prediction, target);
  }
  std::string name() const override { return "mse"; }
  Var masked(const Var& prediction, const Var& target, const Tensor& mask) const override;
};

/// Poisson negative log-likelihood of counts given log-rates (PyTorch's PoissonNLLLoss with
/// log_input=True): mean of exp(x) - y x. The model's output ends in Exp (predictions are rates);
/// training feeds the log-rates.
class PoissonNLL : public Loss {
 public:
  Var operator()(const Var& log_rate, const Var& counts) const override {
    return poisson_nll(log_rate, counts);
  }
  std::string name() const override { return "poisson"; }
  Activation applies_activation() const override { return Activation::kExp; }
  Var masked(const Var& log_rate, const Var& counts, const Tensor& mask) const override;
};

/// Categorical cross-entropy of logits (B, K) against one-hot (or soft) targets (B, K): the
/// model ends in Softmax; training feeds the logits.
class CategoricalCrossEntropy : public Loss {
 public:
  Var operator()(const Var& logits, const Var& targets) const override {
    return categorical_crossentropy(logits, targets);
  }
  std::string name() const override { return "categorical_crossentropy"; }
  Activation applies_activation() const override { return Activation::kSoftmax; }
  TargetKind target_kind() const override { return TargetKind::kCategorical; }
};

/// BPNet's profile loss: the multinomial negative log-likelihood of observed per-position counts
/// (B, S, L) under the softmax over positions of the logits (B, S, L), averaged over profiles.
/// The profile head ends in Softmax; training feeds the logits.
class MultinomialNLL : public Loss {
 public:
  Var operator()(const Var& logits, const Var& counts) const override {
    return multinomial_nll(logits, counts.value());
  }
  std::string name() const override { return "multinomial_nll"; }
  Activation applies_activation() const override { return Activation::kSoftmax; }
  TargetKind target_kind() const override { return TargetKind::kProfile; }
};

}  // namespace strand
