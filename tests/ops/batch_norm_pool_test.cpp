// The fused BatchNorm -> ReLU -> MaxPool1D on the CPU (ops/batch_norm_pool.h) is the unfused
// chain itself: batch_norm with its ReLU, then max_pool1d, and backward max_pool1d_backward then
// batch_norm_backward, bit for bit (the GPU's kernels are checked against it in
// tests/cuda/cuda_batch_norm_pool_test.cpp, its gradient in the op table).
#include <doctest/doctest.h>

#include <vector>

#include "ops/batch_norm_pool.h"
#include "test_helpers.h"

namespace strand {
namespace {

using testing::random_tensor;

BatchNormStatistics fresh_statistics(int64_t channels) {
  return {Tensor::zeros({channels}, DType::kFloat32), Tensor::ones({channels}, DType::kFloat32),
          Tensor::zeros({}, DType::kFloat64)};
}

TEST_CASE("batch_norm_relu_max_pool on the CPU equals batch_norm_relu then max_pool1d exactly") {
  const Tensor x = random_tensor({6, 5, 37}, 61, DType::kFloat32);
  const Tensor weight = random_tensor({5}, 62, DType::kFloat32);
  const Tensor bias = random_tensor({5}, 63, DType::kFloat32);
  for (const Pool1DParams pool : {Pool1DParams{3, 3, false}, Pool1DParams{4, 2, true}}) {
    for (const bool training : {true, false}) {
      CAPTURE(pool.kernel);
      CAPTURE(training);
      BatchNormOptions options;
      options.training = training;
      BatchNormStatistics fused_stats = fresh_statistics(5), chain_stats = fresh_statistics(5);
      const auto [out, argmax, mean, invstd] =
          ops::batch_norm_relu_max_pool(x, weight, bias, fused_stats, options, pool);
      BatchNormOptions with_relu = options;
      with_relu.relu = true;
      const auto [activated, chain_mean, chain_invstd] =
          ops::batch_norm(x, weight, bias, chain_stats, with_relu);
      const auto [chain_out, chain_argmax] = ops::max_pool1d(activated, pool);
      CHECK(out.to_vector<float>() == chain_out.to_vector<float>());
      CHECK(argmax.to_vector<int64_t>() == chain_argmax.to_vector<int64_t>());
      CHECK(mean.to_vector<float>() == chain_mean.to_vector<float>());
      CHECK(fused_stats.running_var.to_vector<float>() ==
            chain_stats.running_var.to_vector<float>());
      CHECK(fused_stats.num_batches_tracked.item() == chain_stats.num_batches_tracked.item());

      const Tensor g = random_tensor(out.shape(), 64, DType::kFloat32);
      const auto [grad_x, grad_weight, grad_bias] = ops::batch_norm_relu_max_pool_backward(
          g, x, out, argmax, weight, mean, invstd, options, pool);
      const Tensor routed = ops::max_pool1d_backward(g, chain_argmax, x.shape(), pool);
      const auto [chain_gx, chain_gw, chain_gb] = ops::batch_norm_backward(
          routed, x, activated, weight, chain_mean, chain_invstd, with_relu);
      CHECK(grad_x.to_vector<float>() == chain_gx.to_vector<float>());
      CHECK(grad_weight.to_vector<float>() == chain_gw.to_vector<float>());
      CHECK(grad_bias.to_vector<float>() == chain_gb.to_vector<float>());
    }
  }
}

TEST_CASE("batch_norm_relu_max_pool refuses what it cannot pool, naming the op") {
  BatchNormStatistics statistics = fresh_statistics(3);
  const Tensor w = Tensor::ones({3}), b = Tensor::zeros({3});
  CHECK_THROWS_WITH_AS(
      ops::batch_norm_relu_max_pool(Tensor::zeros({4, 3}), w, b, statistics, {}, {2, 2, false}),
      doctest::Contains("batch_norm_relu_max_pool"), Error);
  CHECK_THROWS_WITH_AS(
      ops::batch_norm_relu_max_pool(Tensor::zeros({4, 3, 2}), w, b, statistics, {}, {3, 3, false}),
      doctest::Contains("shorter than the pooling window"), Error);
  CHECK_THROWS_WITH_AS(
      ops::batch_norm_relu_max_pool(Tensor::zeros({4, 2, 9}), w, b, statistics, {}, {3, 3, false}),
      doctest::Contains("has 2 channels"), Error);
}

}  // namespace
}  // namespace strand
