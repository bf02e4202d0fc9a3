// The fused batch_norm op family (ops/normalization.h) against its readable oracle: the same
// formula composed from differentiable elementwise and reduction ops (what batch_norm ran
// before it was fused). Outputs, gradients of x, weight and bias, and the running statistics
// agree, in training and evaluation, for (B, C) and (B, C, L), with and without the ReLU.
#include <doctest/doctest.h>

#include <vector>

#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/normalization.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "test_helpers.h"

namespace strand {
namespace {

using testing::max_abs_difference;
using testing::random_tensor;

// batch_norm written as its formula, from differentiable ops.
Var composed_batch_norm(const Var& x, const Var& weight, const Var& bias,
                        BatchNormStatistics& statistics, bool training, double momentum,
                        double eps) {
  const int64_t channels = x.size(1);
  const Shape per_channel = x.dim() == 3 ? Shape{1, channels, 1} : Shape{1, channels};
  const std::vector<int64_t> reduced =
      x.dim() == 3 ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{0};
  Var normalized;
  if (training) {
    const int64_t count = x.value().numel() / channels;
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

struct Run {
  std::vector<Tensor> tensors;  // out, grad x, grad weight, grad bias, running mean, var, count
};

Run run(bool fused, const Shape& shape, DType dtype, bool training, bool relu) {
  const int64_t channels = shape[1];
  // Inputs centred away from zero, so the variance is not taken about the origin.
  Var x(ops::affine(random_tensor(shape, 1, dtype), 2.0, 3.0), true);
  Var weight(random_tensor({channels}, 2, dtype), true);
  Var bias(random_tensor({channels}, 3, dtype), true);
  BatchNormStatistics statistics{random_tensor({channels}, 4, dtype),
                                 ops::affine(random_tensor({channels}, 5, dtype), 0.5, 1.0),
                                 Tensor::zeros({}, DType::kFloat64)};
  Var out;
  if (fused) {
    out = relu ? batch_norm_relu(x, weight, bias, statistics, training, 0.1, 1e-5)
               : batch_norm(x, weight, bias, statistics, training, 0.1, 1e-5);
  } else {
    out = composed_batch_norm(x, weight, bias, statistics, training, 0.1, 1e-5);
    if (relu) out = strand::relu(out);
  }
  out.backward(random_tensor(shape, 6, dtype));
  return {{out.value(), x.grad(), weight.grad(), bias.grad(), statistics.running_mean,
           statistics.running_var, statistics.num_batches_tracked}};
}

void check_matches_composed(DType dtype, double tolerance) {
  const char* names[] = {"output",       "grad x",      "grad weight",        "grad bias",
                         "running mean", "running var", "num_batches_tracked"};
  for (const Shape& shape : {Shape{6, 4}, Shape{5, 3, 9}, Shape{2, 70, 13}}) {
    for (const bool training : {true, false}) {
      for (const bool relu : {false, true}) {
        CAPTURE(shape_to_string(shape));
        CAPTURE(training);
        CAPTURE(relu);
        const Run fused = run(true, shape, dtype, training, relu);
        const Run composed = run(false, shape, dtype, training, relu);
        for (size_t i = 0; i < fused.tensors.size(); ++i) {
          INFO(names[i]);
          CHECK(max_abs_difference(fused.tensors[i], composed.tensors[i]) <= tolerance);
        }
      }
    }
  }
}

TEST_CASE("batch_norm (fused) matches the composed formula in float64") {
  check_matches_composed(DType::kFloat64, 1e-11);
}

TEST_CASE("batch_norm (fused) matches the composed formula in float32") {
  check_matches_composed(DType::kFloat32, 1e-4);
}

}  // namespace
}  // namespace strand
