// The op table: one row per differentiable op (or per variant of one: broadcasting, stride,
// padding), and one driver that checks every row the same way, as ggml's test-backend-ops
// does. Adding an op adds a row here, not a test file.
//
// For each row the driver makes the inputs (float64, seeded from the row's name), then:
//   1. a finite-difference gradient check in float64 (eps 1e-6, atol 1e-5, rtol 1e-3);
//   2. the same check with every differentiable input whose last two dimensions are > 1
//      replaced by a non-contiguous view (a transpose) holding the same values;
//   3. with a GPU, for both layouts: forward and backward (random upstream gradient) on the
//      device agree with the CPU within 1e-10. Without a GPU this part does nothing; the GPU
//      suites (tests/cuda) report themselves skipped.
// Each row is its own doctest case, so each is its own CTest test ("autograd: op ...").
#include <doctest/doctest.h>

#include <functional>
#include <string_view>
#include <vector>

#include "autograd/gradcheck.h"
#include "core/splitmix64.h"
#include "ops/batch_norm_pool.h"
#include "ops/conv1d.h"
#include "ops/dropout.h"
#include "ops/elementwise.h"
#include "ops/loss.h"
#include "ops/matmul.h"
#include "ops/normalization.h"
#include "ops/pooling.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "ops/softmax.h"
#include "test_helpers.h"
#include "tests/cuda/cuda_test_support.h"

namespace strand {
namespace {

using testing::random_codes;
using testing::random_tensor;
using Fn = std::function<Var(const std::vector<Var>&)>;

// What an input holds. Float inputs are differentiable; the others are data.
enum class Values {
  kNormal,        // standard normal
  kPositive,      // [0.5, 1.5): away from the singularities of log, sqrt and division
  kAwayFromZero,  // |x| >= 0.1, where relu's derivative jumps
  kWide,          // 8 x normal: reaches the tails of sigmoid-based losses
  kBinary,        // 0 or 1 (targets), not differentiable
  kMask,          // 0 or 1 (label masks), not differentiable
  kCodes,         // uint8 base codes of shape (B, L), not differentiable
};

struct Input {
  Shape shape;
  Values values = Values::kNormal;
};

Input normal(Shape shape) { return {std::move(shape), Values::kNormal}; }
Input positive(Shape shape) { return {std::move(shape), Values::kPositive}; }
Input away_from_zero(Shape shape) { return {std::move(shape), Values::kAwayFromZero}; }
Input wide(Shape shape) { return {std::move(shape), Values::kWide}; }
Input binary(Shape shape) { return {std::move(shape), Values::kBinary}; }
Input mask(Shape shape) { return {std::move(shape), Values::kMask}; }
Input codes(int64_t batch, int64_t length) { return {{batch, length}, Values::kCodes}; }

bool differentiable(Values values) {
  return values != Values::kBinary && values != Values::kMask && values != Values::kCodes;
}

uint64_t seed_of(std::string_view name, size_t index) {
  uint64_t seed = index;
  for (const char c : name) seed = splitmix64_hash(seed ^ static_cast<unsigned char>(c));
  return seed;
}

Tensor values_of(const Input& input, uint64_t seed) {
  switch (input.values) {
    case Values::kNormal:
      return random_tensor(input.shape, seed);
    case Values::kPositive:
      return ops::affine(random_tensor(input.shape, seed), 0.5, 1.0);
    case Values::kWide:
      return ops::affine(random_tensor(input.shape, seed), 8.0, 0.0);
    case Values::kAwayFromZero: {
      Tensor t = random_tensor(input.shape, seed);
      double* data = t.data<double>();
      for (int64_t i = 0; i < t.numel(); ++i) data[i] += data[i] >= 0 ? 0.1 : -0.1;
      return t;
    }
    case Values::kBinary:
    case Values::kMask: {
      Generator generator(seed);
      Tensor t = Tensor::zeros(input.shape, DType::kFloat64);
      double* data = t.data<double>();
      for (int64_t i = 0; i < t.numel(); ++i) {
        data[i] = static_cast<double>(generator.next_below(2));
      }
      // A mask keeps at least one element, so the masked mean is defined.
      if (input.values == Values::kMask && t.numel() > 0) data[0] = 1.0;
      return t;
    }
    case Values::kCodes:
      return random_codes(input.shape[0], input.shape[1], seed);
  }
  return {};
}

// The same values as a non-contiguous view: a contiguous tensor of the transposed shape,
// transposed back.
Tensor as_strided_view(const Tensor& value) {
  Tensor swapped = value.transpose(-1, -2).contiguous();
  Tensor view = swapped.transpose(-1, -2);
  REQUIRE_FALSE(view.is_contiguous());
  return view;
}

// With a GPU: the function on device copies of the inputs, forward and backward, agrees
// with the CPU.
void check_gpu_matches_cpu(const Fn& fn, const std::vector<Var>& inputs) {
  if (!testing::has_gpu()) return;
  const auto run = [&](Device device) {
    std::vector<Var> copies;
    for (const Var& input : inputs) {
      copies.emplace_back(input.value().to(device), input.requires_grad());
    }
    Var out = fn(copies);
    out.backward(random_tensor(out.value().shape(), 99).to(device));
    std::vector<Tensor> results{out.value().to(Device::cpu())};
    for (const Var& copy : copies) {
      if (copy.requires_grad()) results.push_back(copy.grad().to(Device::cpu()));
    }
    return results;
  };
  const std::vector<Tensor> cpu = run(Device::cpu());
  const std::vector<Tensor> gpu = run(Device::cuda());
  REQUIRE(cpu.size() == gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    INFO((i == 0 ? std::string("output") : "gradient of input " + std::to_string(i - 1)));
    CHECK(testing::max_abs_difference(gpu[i], cpu[i]) <= 1e-10);
  }
}

void check_layout(const Fn& fn, const std::vector<Var>& inputs) {
  const GradcheckResult result = gradcheck(fn, inputs);
  INFO(result.message);
  CHECK(result.ok);
  check_gpu_matches_cpu(fn, inputs);
}

// The driver: every check of the header comment, for one row.
void check_op(std::string_view name, const Fn& fn, const std::vector<Input>& specs) {
  std::vector<Tensor> values;
  for (size_t i = 0; i < specs.size(); ++i) values.push_back(values_of(specs[i], seed_of(name, i)));

  std::vector<Var> contiguous;
  std::vector<Var> strided;
  bool any_strided = false;
  for (size_t i = 0; i < specs.size(); ++i) {
    const bool grad = differentiable(specs[i].values);
    contiguous.emplace_back(values[i], grad);
    // (A transpose with a size-1 dimension among the last two is still contiguous.)
    const Shape& shape = specs[i].shape;
    const bool transpose =
        grad && shape.size() >= 2 && shape[shape.size() - 1] > 1 && shape[shape.size() - 2] > 1;
    strided.emplace_back(transpose ? as_strided_view(values[i]) : values[i], grad);
    any_strided = any_strided || transpose;
  }
  {
    INFO("contiguous inputs");
    check_layout(fn, contiguous);
  }
  if (any_strided) {
    INFO("non-contiguous inputs");
    check_layout(fn, strided);
  }
}

// batch_norm with running statistics on x's device: fresh ones in training, others in
// evaluation (functions, not lambdas in the rows: braces do not shield commas from the macro).
BatchNormStatistics statistics_for(const Var& weight, bool training) {
  const Device device = weight.device();
  const int64_t channels = weight.value().size(0);
  if (training) {
    return {Tensor::zeros({channels}, DType::kFloat64, device),
            Tensor::ones({channels}, DType::kFloat64, device),
            Tensor::zeros({}, DType::kFloat64, device)};
  }
  return {ops::affine(random_tensor({channels}, 11), 0.5, 0.0).to(device),
          ops::affine(random_tensor({channels}, 12), 0.5, 1.0).to(device),
          Tensor::zeros({}, DType::kFloat64, device)};
}
Var batch_norm_in_training(const std::vector<Var>& v) {
  BatchNormStatistics statistics = statistics_for(v[1], true);
  return batch_norm(v[0], v[1], v[2], statistics, true, 0.1, 1e-5);
}
Var batch_norm_in_evaluation(const std::vector<Var>& v) {
  BatchNormStatistics statistics = statistics_for(v[1], false);
  return batch_norm(v[0], v[1], v[2], statistics, false, 0.1, 1e-5);
}
Var batch_norm_relu_in_training(const std::vector<Var>& v) {
  BatchNormStatistics statistics = statistics_for(v[1], true);
  return batch_norm_relu(v[0], v[1], v[2], statistics, true, 0.1, 1e-5);
}
Var batch_norm_relu_in_evaluation(const std::vector<Var>& v) {
  BatchNormStatistics statistics = statistics_for(v[1], false);
  return batch_norm_relu(v[0], v[1], v[2], statistics, false, 0.1, 1e-5);
}

// max_pool1d(relu(batch_norm(v[0], v[1], v[2]))) as one op, with the pooling window `pool`.
Var batch_norm_relu_max_pool_with(const std::vector<Var>& v, bool training,
                                  const Pool1DParams& pool) {
  BatchNormStatistics statistics = statistics_for(v[1], training);
  return batch_norm_relu_max_pool(v[0], v[1], v[2], statistics, training, 0.1, 1e-5, pool);
}

// One row: a doctest case named "op <name>" that runs the driver.
#define STRAND_OP_ROW(name, fn, ...) \
  TEST_CASE("op " name) { check_op(name, fn, {__VA_ARGS__}); }

// ---- Element-wise ----------------------------------------------------------------------
STRAND_OP_ROW(
    "add (broadcast a row)", [](auto& v) { return add(v[0], v[1]); }, normal({3, 4}), normal({4}))
STRAND_OP_ROW(
    "add (broadcast a column)", [](auto& v) { return add(v[0], v[1]); }, normal({3, 4}),
    normal({3, 1}))
STRAND_OP_ROW(
    "sub (broadcast)", [](auto& v) { return sub(v[0], v[1]); }, normal({2, 3}), normal({1, 3}))
STRAND_OP_ROW(
    "sub (broadcast the first)", [](auto& v) { return sub(v[0], v[1]); }, normal({4}),
    normal({2, 4}))
STRAND_OP_ROW(
    "mul (broadcast)", [](auto& v) { return mul(v[0], v[1]); }, normal({2, 3}), normal({3}))
STRAND_OP_ROW(
    "mul (same shape)", [](auto& v) { return mul(v[0], v[1]); }, normal({3, 2}), normal({3, 2}))
STRAND_OP_ROW(
    "div (broadcast)", [](auto& v) { return div(v[0], v[1]); }, normal({2, 3}), positive({3}))
STRAND_OP_ROW(
    "div (broadcast a column)", [](auto& v) { return div(v[0], v[1]); }, normal({3, 2}),
    positive({3, 1}))
STRAND_OP_ROW(
    "affine", [](auto& v) { return affine(v[0], -2.5, 0.3); }, normal({3, 4}))
STRAND_OP_ROW(
    "neg", [](auto& v) { return neg(v[0]); }, normal({2, 5}))
STRAND_OP_ROW(
    "exp", [](auto& v) { return exp(v[0]); }, normal({2, 3}))
STRAND_OP_ROW(
    "log", [](auto& v) { return log(v[0]); }, positive({2, 3}))
STRAND_OP_ROW(
    "sigmoid", [](auto& v) { return sigmoid(v[0]); }, normal({3, 3}))
STRAND_OP_ROW(
    "relu", [](auto& v) { return relu(v[0]); }, away_from_zero({4, 5}))
STRAND_OP_ROW(
    "tanh", [](auto& v) { return tanh(v[0]); }, normal({3, 2}))
STRAND_OP_ROW(
    "sqrt", [](auto& v) { return sqrt(v[0]); }, positive({2, 3}))
STRAND_OP_ROW(
    "square", [](auto& v) { return square(v[0]); }, normal({2, 3}))

// ---- Reductions --------------------------------------------------------------------------
STRAND_OP_ROW(
    "sum (all)", [](auto& v) { return sum(v[0]); }, normal({2, 3, 4}))
STRAND_OP_ROW(
    "sum (axes 0 and 2)",
    [](auto& v) {
      return sum(v[0], {0, 2});
    },
    normal({2, 3, 4}))
STRAND_OP_ROW(
    "sum (keepdim)", [](auto& v) { return sum(v[0], {1}, true); }, normal({3, 4}))
STRAND_OP_ROW(
    "mean (all)", [](auto& v) { return mean(v[0]); }, normal({3, 4}))
STRAND_OP_ROW(
    "mean (last axis)", [](auto& v) { return mean(v[0], {-1}); }, normal({2, 3, 4}))
STRAND_OP_ROW(
    "max (axis 1)", [](auto& v) { return max(v[0], 1).first; }, normal({3, 7}))
STRAND_OP_ROW(
    "max (axis 0, keepdim)", [](auto& v) { return max(v[0], 0, true).first; }, normal({4, 3}))

// ---- Linear algebra and shape ------------------------------------------------------------
STRAND_OP_ROW(
    "matmul", [](auto& v) { return matmul(v[0], v[1]); }, normal({3, 4}), normal({4, 5}))
STRAND_OP_ROW(
    "reshape",
    [](auto& v) {
      return reshape(v[0], {6, -1});
    },
    normal({3, 4}))
STRAND_OP_ROW(
    "transpose", [](auto& v) { return transpose(v[0], 0, 2); }, normal({2, 3, 4}))
STRAND_OP_ROW(
    "slice (step 2)", [](auto& v) { return slice(v[0], 1, 1, 6, 2); }, normal({3, 7}))
STRAND_OP_ROW(
    "slice (negative start)", [](auto& v) { return slice(v[0], 0, -3, 4); }, normal({5, 2}))
STRAND_OP_ROW(
    "concat",
    [](auto& v) {
      return concat({v[0], v[1]}, 1);
    },
    normal({2, 3}), normal({2, 2}))
STRAND_OP_ROW(
    "chunk (gated)",
    [](auto& v) {
      const auto halves = chunk<2>(v[0], 1);  // no structured binding: its comma splits the row
      return mul(halves[0], sigmoid(halves[1]));
    },
    normal({2, 6, 3}))

// ---- Convolution and pooling -------------------------------------------------------------
STRAND_OP_ROW(
    "conv1d (dense, valid)", [](auto& v) { return conv1d(v[0], v[1], v[2], Conv1DParams{}); },
    normal({2, 3, 11}), normal({4, 3, 3}), normal({4}))
STRAND_OP_ROW(
    "conv1d (dense, stride, dilation, padding)",
    [](auto& v) {
      return conv1d(v[0], v[1], v[2], Conv1DParams{2, 2, 3, 1});
    },
    normal({2, 3, 10}), normal({2, 3, 4}), normal({2}))
STRAND_OP_ROW(
    "conv1d (dense, two output channels: the direct kernels)",
    [](auto& v) {
      return conv1d(v[0], v[1], v[2], Conv1DParams{1, 2, 3, 2});
    },
    normal({2, 3, 12}), normal({2, 3, 5}), normal({2}))
STRAND_OP_ROW(
    "conv1d (dense, no bias)", [](auto& v) { return conv1d(v[0], v[1], Var(), Conv1DParams{}); },
    normal({1, 2, 6}), normal({3, 2, 2}))
STRAND_OP_ROW(
    "conv1d (one-hot base codes, same padding)",
    [](auto& v) {
      return conv1d(v[2], v[0], v[1], Conv1DParams{1, 1, 2, 2});
    },
    normal({5, 4, 5}), normal({5}), codes(3, 20))
STRAND_OP_ROW(
    "conv1d (one-hot base codes, stride and dilation)",
    [](auto& v) {
      return conv1d(v[2], v[0], v[1], Conv1DParams{3, 2, 0, 0});
    },
    normal({2, 4, 3}), normal({2}), codes(3, 20))
STRAND_OP_ROW(
    "conv1d_relu (fused ReLU, dense, stride, dilation, padding)",
    [](auto& v) {
      return conv1d_relu(v[0], v[1], v[2], Conv1DParams{2, 2, 3, 1});
    },
    normal({2, 3, 10}), normal({3, 3, 4}), normal({3}))
STRAND_OP_ROW(
    "conv1d_relu (fused ReLU, dense, no bias)",
    [](auto& v) { return conv1d_relu(v[0], v[1], Var(), Conv1DParams{}); }, normal({2, 2, 7}),
    normal({3, 2, 2}))
STRAND_OP_ROW(
    "conv1d_relu (fused ReLU, base codes, same padding)",
    [](auto& v) {
      return conv1d_relu(v[2], v[0], v[1], Conv1DParams{1, 1, 2, 2});
    },
    normal({5, 4, 5}), normal({5}), codes(3, 20))
STRAND_OP_ROW(
    "conv1d_relu_max (fused, dense)",
    [](auto& v) {
      return conv1d_relu_max(v[0], v[1], v[2], Conv1DParams{1, 1, 1, 1});
    },
    normal({3, 2, 9}), normal({6, 2, 3}), normal({6}))
STRAND_OP_ROW(
    "conv1d_relu_max (fused, base codes)",
    [](auto& v) { return conv1d_relu_max(v[2], v[0], v[1], Conv1DParams{}); }, normal({8, 4, 5}),
    normal({8}), codes(4, 30))
STRAND_OP_ROW(
    "global_max_pool1d", [](auto& v) { return global_max_pool1d(v[0]); }, normal({2, 3, 8}))

STRAND_OP_ROW(
    "softplus", [](auto& v) { return softplus(v[0]); }, wide({3, 5}))
STRAND_OP_ROW(
    "gelu", [](auto& v) { return gelu(v[0]); }, wide({3, 5}))

STRAND_OP_ROW(
    "dropout (rate 0.3, a fixed step's mask)",
    [](auto& v) {
      return dropout(v[0], DropoutMask{0.3, 7, 2});
    },
    normal({4, 6}))

STRAND_OP_ROW(
    "crop1d (centre, odd surplus)", [](auto& v) { return crop1d(v[0], 4); }, normal({2, 3, 9}))

// ---- Normalisation ------------------------------------------------------------------------
STRAND_OP_ROW("batch_norm (training, batch statistics)", batch_norm_in_training, normal({4, 3, 5}),
              normal({3}), normal({3}))
STRAND_OP_ROW("batch_norm (training, (B, C))", batch_norm_in_training, normal({6, 4}), normal({4}),
              normal({4}))
STRAND_OP_ROW("batch_norm (evaluation, running statistics)", batch_norm_in_evaluation,
              normal({4, 3, 5}), normal({3}), normal({3}))
STRAND_OP_ROW("batch_norm (evaluation, (B, C))", batch_norm_in_evaluation, normal({5, 3}),
              normal({3}), normal({3}))
STRAND_OP_ROW("batch_norm_relu (training, fused ReLU)", batch_norm_relu_in_training,
              normal({4, 3, 5}), normal({3}), normal({3}))
STRAND_OP_ROW("batch_norm_relu (training, (B, C))", batch_norm_relu_in_training, normal({7, 3}),
              normal({3}), normal({3}))
STRAND_OP_ROW("batch_norm_relu (evaluation, fused ReLU)", batch_norm_relu_in_evaluation,
              normal({3, 2, 6}), normal({2}), normal({2}))
STRAND_OP_ROW(
    "batch_norm_relu_max_pool (training, window 3)",
    [](auto& v) {
      return batch_norm_relu_max_pool_with(v, true, Pool1DParams{3, 3, false});
    },
    normal({4, 3, 10}), normal({3}), normal({3}))
STRAND_OP_ROW(
    "batch_norm_relu_max_pool (training, window 3, stride 2, ceil_mode)",
    [](auto& v) {
      return batch_norm_relu_max_pool_with(v, true, Pool1DParams{3, 2, true});
    },
    normal({3, 2, 10}), normal({2}), normal({2}))
STRAND_OP_ROW(
    "batch_norm_relu_max_pool (evaluation, window 2)",
    [](auto& v) {
      return batch_norm_relu_max_pool_with(v, false, Pool1DParams{2, 2, false});
    },
    normal({3, 2, 7}), normal({2}), normal({2}))

// ---- Pooling -----------------------------------------------------------------------------
STRAND_OP_ROW(
    "max_pool1d (window 3, stride 2, ceil_mode)",
    [](auto& v) {
      return max_pool1d(v[0], Pool1DParams{3, 2, true});
    },
    normal({2, 3, 10}))
STRAND_OP_ROW(
    "max_pool1d (window 2, non-overlapping)",
    [](auto& v) {
      return max_pool1d(v[0], Pool1DParams{2, 2, false});
    },
    normal({2, 2, 9}))
STRAND_OP_ROW(
    "avg_pool1d (window 4, stride 3, ceil_mode)",
    [](auto& v) {
      return avg_pool1d(v[0], Pool1DParams{4, 3, true});
    },
    normal({2, 3, 11}))
STRAND_OP_ROW(
    "avg_pool1d (window 3, stride 1, overlapping)",
    [](auto& v) {
      return avg_pool1d(v[0], Pool1DParams{3, 1, false});
    },
    normal({1, 2, 8}))
STRAND_OP_ROW(
    "global_avg_pool1d", [](auto& v) { return global_avg_pool1d(v[0]); }, normal({2, 3, 7}))

// ---- Losses ------------------------------------------------------------------------------
STRAND_OP_ROW(
    "bce_with_logits", [](auto& v) { return bce_with_logits(v[0], v[1]); }, wide({12, 1}),
    binary({12, 1}))
STRAND_OP_ROW(
    "bce_with_logits (weighted by a label mask)",
    [](auto& v) { return bce_with_logits(v[0], v[1], v[2].value()); }, normal({3, 2}),
    binary({3, 2}), mask({3, 2}))
STRAND_OP_ROW(
    "mse", [](auto& v) { return mse(v[0], v[1]); }, normal({3, 2}), normal({3, 2}))

STRAND_OP_ROW(
    "poisson_nll", [](auto& v) { return poisson_nll(v[0], v[1]); }, normal({3, 4}),
    positive({3, 4}))
STRAND_OP_ROW(
    "categorical_crossentropy", [](auto& v) { return categorical_crossentropy(v[0], v[1]); },
    normal({4, 3}), binary({4, 3}))
STRAND_OP_ROW(
    "multinomial_nll (profiles over positions)",
    [](auto& v) { return multinomial_nll(v[0], v[1].value()); }, normal({2, 3, 6}),
    binary({2, 3, 6}))
STRAND_OP_ROW(
    "bce_with_logits_task_weighted",
    [](auto& v) {
      const Tensor task_weights = Tensor::from_vector(std::vector<double>{0.5, 2.0}, {2});
      return bce_with_logits_task_weighted(v[0], v[1], v[2].value(), task_weights);
    },
    normal({3, 2}), binary({3, 2}), mask({3, 2}))
STRAND_OP_ROW(
    "log_softmax (dim 1)", [](auto& v) { return log_softmax(v[0], 1); }, normal({3, 5}))

// The driver's first check must be able to fail: x * stop_gradient(x) has the numerical
// derivative 2x (the finite difference moves both factors, which share storage) but the
// analytic one x.
TEST_CASE("op table: gradcheck refuses a wrong gradient") {
  const Fn wrong = [](const std::vector<Var>& v) { return mul(v[0], Var(v[0].value())); };
  const GradcheckResult result = gradcheck(wrong, {Var(random_tensor({2, 3}, 7), true)});
  CHECK_FALSE(result.ok);
  CHECK(result.message.find("input 0") != std::string::npos);
}

}  // namespace
}  // namespace strand
