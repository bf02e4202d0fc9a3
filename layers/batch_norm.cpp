// BatchNorm1D and its catalog entry.
#include "layers/batch_norm.h"

#include <fmt/format.h>

#include "layers/layer_catalog.h"
#include "ops/batch_norm_pool.h"

namespace strand {

BatchNorm1D::BatchNorm1D(int64_t num_features, double momentum, double eps)
    : num_features_(num_features), momentum_(momentum), eps_(eps) {
  STRAND_CHECK(num_features >= 1, "BatchNorm1D: num_features must be >= 1, got {}", num_features);
  STRAND_CHECK(eps > 0.0 && momentum >= 0.0 && momentum <= 1.0,
               "BatchNorm1D: need eps > 0 and momentum in [0, 1], got {} and {}", eps, momentum);
  weight_ = register_parameter("weight", Tensor::ones({num_features}));
  bias_ = register_parameter("bias", Tensor::zeros({num_features}));
  running_mean_ = register_buffer("running_mean", Tensor::zeros({num_features}));
  running_var_ = register_buffer("running_var", Tensor::ones({num_features}));
  num_batches_tracked_ = register_buffer("num_batches_tracked", Tensor::zeros({}, DType::kFloat64));
}

Var BatchNorm1D::forward(const Var& x) { return forward_with(x, false); }

Var BatchNorm1D::forward_relu(const Var& x) { return forward_with(x, true); }

Var BatchNorm1D::forward_with(const Var& x, bool relu) {
  // Handles to the buffers' current tensors (Module::to may have replaced them).
  BatchNormStatistics statistics{running_mean_.value(), running_var_.value(),
                                 num_batches_tracked_.value()};
  return relu ? batch_norm_relu(x, weight_, bias_, statistics, is_training(), momentum_, eps_)
              : batch_norm(x, weight_, bias_, statistics, is_training(), momentum_, eps_);
}

Var BatchNorm1D::forward_relu_max_pool(const Var& x, const Pool1DParams& pool) {
  BatchNormStatistics statistics{running_mean_.value(), running_var_.value(),
                                 num_batches_tracked_.value()};
  return batch_norm_relu_max_pool(x, weight_, bias_, statistics, is_training(), momentum_, eps_,
                                  pool);
}

Shape BatchNorm1D::output_shape(const Shape& input) const {
  STRAND_CHECK((input.size() == 1 || input.size() == 2) && input[0] == num_features_,
               "BatchNorm1D({}): expected input ({}) or ({}, L), got ({})", num_features_,
               num_features_, num_features_, fmt::join(input, ", "));
  return input;
}

void BatchNorm1D::reset_parameters(Generator& /*generator*/) {
  set_parameter("weight", Tensor::ones({num_features_}, weight_.dtype(), weight_.device()));
  set_parameter("bias", Tensor::zeros({num_features_}, bias_.dtype(), bias_.device()));
  running_mean_.mutable_value().zero_();
  running_var_.mutable_value().fill_(1.0);
  num_batches_tracked_.mutable_value().zero_();
}

LayerType batch_norm1d_layer_type() {
  LayerType type;
  type.name = "BatchNorm1D";
  type.help = "per-channel normalisation with learned scale and shift (PyTorch's BatchNorm1d)";
  type.options = {
      {.name = "momentum",
       .kind = LayerOption::Kind::kReal,
       .help = "weight of each new batch in the running statistics (PyTorch's; Keras's 0.99 is "
               "0.01 here)",
       .default_value = 0.1,
       .real_min = 0.0,
       .real_max = 1.0},
      {.name = "eps",
       .kind = LayerOption::Kind::kReal,
       .help = "added to the variance",
       .default_value = 1e-5,
       .real_min = 1e-12,
       .real_max = 1.0},
  };
  type.build = [](const LayerOptions& o, const Shape& input) -> std::shared_ptr<Layer> {
    STRAND_CHECK(input.size() == 1 || input.size() == 2, "expects (C) or (C, L) features, got ({})",
                 fmt::join(input, ", "));
    return std::make_shared<BatchNorm1D>(input[0], real_option(o, "momentum"),
                                         real_option(o, "eps"));
  };
  return type;
}

}  // namespace strand
