// Loss layers: binary cross-entropy from logits (numerically stable) and mean squared error.
// Both average over every element.
#pragma once

#include <string>

#include "ops/loss.h"

namespace strand {

/// A loss: a scalar Var from a prediction and a target of the same shape.
class Loss {
 public:
  virtual ~Loss() = default;
  /// The mean loss over every element.
  virtual Var operator()(const Var& prediction, const Var& target) const = 0;
  /// The Keras name, e.g. "binary_crossentropy".
  virtual std::string name() const = 0;
  /// True when the loss expects logits (pre-sigmoid scores) rather than probabilities.
  virtual bool takes_logits() const { return false; }
  /// The loss of one training batch with its label mask (same shape as target, 1 = valid,
  /// 0 = ambiguous). A loss that has no masked form ignores the mask (the default).
  virtual Var masked(const Var& prediction, const Var& target, const Tensor& /*mask*/) const {
    return (*this)(prediction, target);
  }
};

/// Mean BCE of logits: max(x,0) - x y + log(1 + exp(-|x|)). Feed it the model's output before
/// its final Sigmoid (training does this for models that end in Sigmoid).
class BinaryCrossEntropy : public Loss {
 public:
  Var operator()(const Var& logits, const Var& target) const override {
    return bce_with_logits(logits, target);
  }
  std::string name() const override { return "binary_crossentropy"; }
  bool takes_logits() const override { return true; }
  /// Ambiguous labels carry no loss: the mean is over the valid ones.
  Var masked(const Var& logits, const Var& target, const Tensor& mask) const override {
    return bce_with_logits(logits, target, mask);
  }
};

/// Mean of (prediction - target)^2 over every element.
class MeanSquaredError : public Loss {
 public:
  Var operator()(const Var& prediction, const Var& target) const override {
    return mse(prediction, target);
  }
  std::string name() const override { return "mse"; }
};

}  // namespace strand
