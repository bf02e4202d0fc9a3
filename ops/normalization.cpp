// Batch normalisation, composed from differentiable ops.
#include "ops/normalization.h"

#include <vector>

#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "ops/shape.h"

namespace strand {

Var batch_norm(const Var& x, const Var& weight, const Var& bias, BatchNormStatistics& statistics,
               bool training, double momentum, double eps) {
  STRAND_CHECK(x.dim() == 2 || x.dim() == 3, "batch_norm: expected (B, C) or (B, C, L), got {}",
               x.value().describe());
  const int64_t channels = x.size(1);
  STRAND_CHECK(weight.shape() == Shape{channels} && bias.shape() == Shape{channels} &&
                   statistics.running_mean.shape() == Shape{channels} &&
                   statistics.running_var.shape() == Shape{channels},
               "batch_norm: input {} has {} channels but the weight, bias or running statistics "
               "do not",
               x.value().describe(), channels);
  STRAND_CHECK(eps > 0.0 && momentum >= 0.0 && momentum <= 1.0,
               "batch_norm: need eps > 0 and momentum in [0, 1], got {} and {}", eps, momentum);
  // Statistics broadcast against x: (1, C, 1) or (1, C).
  const Shape per_channel = x.dim() == 3 ? Shape{1, channels, 1} : Shape{1, channels};
  const std::vector<int64_t> reduced =
      x.dim() == 3 ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{0};
  Var normalized;
  if (training) {
    const int64_t count = x.value().numel() / channels;
    STRAND_CHECK(count > 1, "batch_norm: training needs more than one value per channel, got {}",
                 x.value().describe());
    const Var batch_mean = mean(x, reduced, /*keepdim=*/true);
    const Var centered = sub(x, batch_mean);
    const Var batch_var = mean(square(centered), reduced, /*keepdim=*/true);  // biased
    normalized = div(centered, sqrt(affine(batch_var, 1.0, eps)));
    NoGradGuard no_grad;
    const double unbiased = static_cast<double>(count) / static_cast<double>(count - 1);
    const Tensor mean_now = batch_mean.value().reshape({channels});
    const Tensor var_now = ops::affine(batch_var.value().reshape({channels}), unbiased, 0.0);
    statistics.running_mean.copy_(
        ops::add(ops::affine(statistics.running_mean, 1.0 - momentum, 0.0),
                 ops::affine(mean_now, momentum, 0.0)));
    statistics.running_var.copy_(ops::add(ops::affine(statistics.running_var, 1.0 - momentum, 0.0),
                                          ops::affine(var_now, momentum, 0.0)));
    statistics.num_batches_tracked.copy_(ops::affine(statistics.num_batches_tracked, 1.0, 1.0));
  } else {
    const Var mean_then(statistics.running_mean.reshape(per_channel));
    const Var var_then(statistics.running_var.reshape(per_channel));
    normalized = div(sub(x, mean_then), sqrt(affine(var_then, 1.0, eps)));
  }
  return add(mul(normalized, reshape(weight, per_channel)), reshape(bias, per_channel));
}

}  // namespace strand
