// The fused BatchNorm -> ReLU -> MaxPool1D on the GPU (ops/batch_norm_pool.h) against the CPU,
// whose kernel is the unfused composition: the pooled output, its argmax (exactly), the
// statistics and every gradient, in training and evaluation, float32 and float64, for Basset's
// first-layer window and for tails, overlapping windows (ceil_mode) and gaps between windows;
// two GPU runs give the same bits; the GPU's own unfused chain picks the same argmax. And the
// batch norm statistics' one read (Chan's combination) on data far from zero.
#include <doctest/doctest.h>

#include <vector>

#include "cuda_test_support.h"
#include "ops/batch_norm_pool.h"

using namespace strand;
using namespace strand::testing;

namespace {

struct PoolCase {
  Shape x;
  Pool1DParams pool;
};

const PoolCase kPoolCases[] = {
    {{16, 12, 582}, {3, 3, false}},  // Basset's first layer, fewer channels
    {{5, 4, 41}, {4, 4, false}},     // a tail no window reads
    {{6, 3, 30}, {3, 2, true}},      // overlapping windows, the last one cut short
    {{3, 2, 10}, {2, 3, false}},     // gaps between windows
};

// Values on a grid of 1/8 in (-8, 8): ties are exact (both devices take the first position),
// and distinct values stay far apart after the normalisation, so no rounding difference can
// reorder a window.
Tensor grid_values(const Shape& shape, uint64_t seed, DType dtype) {
  return ops::affine(ops::affine(random_tensor(shape, seed), 64.0, 0.0).to(DType::kInt32).to(dtype),
                     0.125, 0.0);
}

// Per-channel weights of both signs, |w| in [0.5, 1.5): a decreasing map reverses a window.
Tensor signed_weights(int64_t channels, DType dtype) {
  std::vector<double> w;
  for (int64_t c = 0; c < channels; ++c) {
    w.push_back((c % 2 == 0 ? 1.0 : -1.0) * (0.5 + static_cast<double>(c % 10) * 0.1));
  }
  return Tensor::from_vector(w, {channels}).to(dtype);
}

struct FusedRun {
  std::vector<Tensor> values;  // out, mean, invstd, running mean and var, grads: on the CPU
  Tensor argmax;               // on the CPU
};

FusedRun run_fused(const PoolCase& c, DType dtype, bool training, Device device) {
  const int64_t channels = c.x[1];
  const Tensor x = grid_values(c.x, 401, dtype).to(device);
  const Tensor weight = signed_weights(channels, dtype).to(device);
  const Tensor bias = random_tensor({channels}, 402, dtype).to(device);
  BatchNormStatistics statistics{
      ops::affine(random_tensor({channels}, 403, dtype), 0.5, 0.0).to(device),
      ops::affine(random_tensor({channels}, 404, dtype), 0.5, 20.0).to(device),
      Tensor::zeros({}, DType::kFloat64, device)};
  BatchNormOptions options;
  options.training = training;
  const auto [out, argmax, mean, invstd] =
      ops::batch_norm_relu_max_pool(x, weight, bias, statistics, options, c.pool);
  const Tensor upstream = random_tensor(out.shape(), 405, dtype).to(device);
  const auto [grad_x, grad_weight, grad_bias] = ops::batch_norm_relu_max_pool_backward(
      upstream, x, out, argmax, weight, mean, invstd, options, c.pool);
  FusedRun run;
  for (const Tensor& t : {out, mean, invstd, statistics.running_mean, statistics.running_var,
                          grad_x, grad_weight, grad_bias}) {
    run.values.push_back(t.to(Device::cpu()));
  }
  run.argmax = argmax.to(Device::cpu());
  return run;
}

}  // namespace

TEST_CASE("cuda: fused BatchNorm -> ReLU -> MaxPool1D matches the CPU, forward and backward") {
  STRAND_REQUIRE_GPU();
  const char* names[] = {"out",         "mean",   "invstd",      "running_mean",
                         "running_var", "grad_x", "grad_weight", "grad_bias"};
  for (const PoolCase& c : kPoolCases) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      for (bool training : {true, false}) {
        INFO("x " << shape_to_string(c.x) << " window " << c.pool.kernel << " stride "
                  << c.pool.stride << " " << dtype_name(dtype)
                  << (training ? " training" : " evaluation"));
        const FusedRun cpu = run_fused(c, dtype, training, Device::cpu());
        const FusedRun gpu_a = run_fused(c, dtype, training, Device::cuda());
        const FusedRun gpu_b = run_fused(c, dtype, training, Device::cuda());
        CHECK(gpu_a.argmax.to_vector<int64_t>() == cpu.argmax.to_vector<int64_t>());
        for (size_t i = 0; i < cpu.values.size(); ++i) {
          INFO(names[i]);
          // Sums over up to 9,312 values per channel (grad_weight, grad_bias), relative to
          // their size; float64 to its rounding.
          const double scale = std::max(
              1.0, max_abs_difference(cpu.values[i],
                                      Tensor::zeros(cpu.values[i].shape(), cpu.values[i].dtype())));
          const double tolerance = dtype == DType::kFloat64 ? 1e-10 : 2e-5;
          CHECK(max_abs_difference(gpu_a.values[i], cpu.values[i]) <= tolerance * scale);
          CHECK(max_abs_difference(gpu_a.values[i], gpu_b.values[i]) == 0.0);
        }
      }
    }
  }
}

TEST_CASE("cuda: the fused op pools what the GPU's unfused chain pools") {
  STRAND_REQUIRE_GPU();
  const PoolCase c = kPoolCases[0];
  const int64_t channels = c.x[1];
  const Tensor x = grid_values(c.x, 411, DType::kFloat32).to(Device::cuda());
  const Tensor weight = signed_weights(channels, DType::kFloat32).to(Device::cuda());
  const Tensor bias = random_tensor({channels}, 412, DType::kFloat32).to(Device::cuda());
  const auto statistics = [&] {
    return BatchNormStatistics{Tensor::zeros({channels}, DType::kFloat32, Device::cuda()),
                               Tensor::ones({channels}, DType::kFloat32, Device::cuda()),
                               Tensor::zeros({}, DType::kFloat64, Device::cuda())};
  };
  BatchNormOptions options;
  BatchNormStatistics fused_statistics = statistics(), chain_statistics = statistics();
  const auto [out, argmax, mean, invstd] =
      ops::batch_norm_relu_max_pool(x, weight, bias, fused_statistics, options, c.pool);
  options.relu = true;
  const auto [activated, chain_mean, chain_invstd] =
      ops::batch_norm(x, weight, bias, chain_statistics, options);
  const auto [chain_out, chain_argmax] = ops::max_pool1d(activated, c.pool);
  CHECK(argmax.to(Device::cpu()).to_vector<int64_t>() ==
        chain_argmax.to(Device::cpu()).to_vector<int64_t>());
  // The same statistics kernel; the normalisation's rounding may differ by an FMA.
  check_close(out, chain_out.to(Device::cpu()), 1e-6, "pooled output");
  check_close(fused_statistics.running_var, chain_statistics.running_var.to(Device::cpu()), 0.0,
              "running variance");
}

TEST_CASE("cuda: batch norm statistics of data far from zero match the CPU (one read)") {
  STRAND_REQUIRE_GPU();
  // 10,000 + U(-1, 1): a sum of squares less the squared sum would cancel every digit of the
  // variance; Chan's combination of shifted per-thread moments keeps it.
  const Shape shape = {64, 8, 600};
  const Tensor x = ops::affine(random_tensor(shape, 421, DType::kFloat32), 1.0, 1e4);
  const Tensor weight = Tensor::ones({8}, DType::kFloat32), bias = Tensor::zeros({8});
  const auto run = [&](Device device) {
    BatchNormStatistics statistics{Tensor::zeros({8}, DType::kFloat32, device),
                                   Tensor::ones({8}, DType::kFloat32, device),
                                   Tensor::zeros({}, DType::kFloat64, device)};
    const auto [out, mean, invstd] =
        ops::batch_norm(x.to(device), weight.to(device), bias.to(device), statistics, {});
    return std::vector<Tensor>{mean.to(Device::cpu()), invstd.to(Device::cpu()),
                               statistics.running_var.to(Device::cpu()), out.to(Device::cpu())};
  };
  const std::vector<Tensor> cpu = run(Device::cpu()), gpu_run = run(Device::cuda());
  const char* names[] = {"mean", "invstd", "running_var", "out"};
  for (size_t i = 0; i < cpu.size(); ++i) {
    INFO(names[i]);
    const double scale =
        std::max(1.0, max_abs_difference(cpu[i], Tensor::zeros(cpu[i].shape(), cpu[i].dtype())));
    CHECK(max_abs_difference(gpu_run[i], cpu[i]) <= 2e-5 * scale);
  }
  // The variance of U(-1, 1) (1/3, as float32 rounds 10,000 + u) is found, not lost.
  for (float v : cpu[2].to_vector<float>())
    CHECK(v == doctest::Approx(0.1 * 1.0 / 3 + 0.9).epsilon(0.02));
}
