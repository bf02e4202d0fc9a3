// The losses' masked forms and BCE's per-task weights.
#include "layers/losses.h"

#include <fmt/format.h>

#include "ops/elementwise.h"

namespace strand {

BinaryCrossEntropy::BinaryCrossEntropy(std::vector<double> task_weights)
    : task_weights_(std::move(task_weights)) {
  for (size_t i = 0; i < task_weights_.size(); ++i) {
    STRAND_CHECK(task_weights_[i] > 0.0 && std::isfinite(task_weights_[i]),
                 "binary_crossentropy: task weight {} is {}, expected a finite number > 0", i,
                 task_weights_[i]);
  }
}

Var BinaryCrossEntropy::operator()(const Var& logits, const Var& target) const {
  if (task_weights_.empty()) return bce_with_logits(logits, target);
  return masked(logits, target, Tensor::ones(logits.shape(), DType::kFloat32, logits.device()));
}

Var BinaryCrossEntropy::masked(const Var& logits, const Var& target, const Tensor& mask) const {
  if (task_weights_.empty()) return bce_with_logits(logits, target, mask);
  STRAND_CHECK(logits.dim() == 2 && logits.size(1) == static_cast<int64_t>(task_weights_.size()),
               "binary_crossentropy: {} task weights for outputs {}", task_weights_.size(),
               logits.value().describe());
  const Tensor& like = logits.value();
  if (!weights_on_device_.defined() || weights_on_device_.device() != like.device() ||
      weights_on_device_.dtype() != like.dtype()) {
    weights_on_device_ =
        Tensor::from_vector(task_weights_, {static_cast<int64_t>(task_weights_.size())})
            .to(like.dtype())
            .to(like.device());
  }
  return bce_with_logits_task_weighted(logits, target, mask, weights_on_device_);
}

Var MeanSquaredError::masked(const Var& prediction, const Var& target, const Tensor& mask) const {
  STRAND_CHECK(prediction.shape() == target.shape(),
               "mse: prediction {} and target {} differ in shape", prediction.value().describe(),
               target.value().describe());
  return masked_mean(square(prediction - target), mask);
}

Var PoissonNLL::masked(const Var& log_rate, const Var& counts, const Tensor& mask) const {
  STRAND_CHECK(log_rate.shape() == counts.shape(),
               "poisson: log rates {} and counts {} differ in shape", log_rate.value().describe(),
               counts.value().describe());
  return masked_mean(exp(log_rate) - counts * log_rate, mask);
}

}  // namespace strand
