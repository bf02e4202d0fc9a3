// The CUDA kernels' launch shapes: the host-side planning (dimension merging, which sums split
// into two passes, the batch norm workspace) checked without a GPU, then each layout of the
// sums, the sum of squares, the warp-per-line max, the chunked batch norm and the warp-per-weight
// fused backward against the CPU on shapes large enough to take the new paths, and repeats
// that must be bit-identical (every reduction adds in an order fixed by the shapes). Also the
// TF32 opt-in and deterministic convolutions through cuDNN.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cuda_test_support.h"
#include "ops/conv1d.h"
#include "ops/matmul.h"
#include "ops/normalization.h"
#include "ops/reduction.h"
#include "tensor/determinism.h"
#include "tensor/precision.h"
#ifdef STRAND_WITH_CUDA
#include "kernels/cuda/merge_dims.h"
#include "kernels/cuda/normalization.h"
#include "kernels/cuda/reduction.h"
#include "tensor/cuda/conv_engine.h"
#endif

using namespace strand;
using namespace strand::testing;

#ifdef STRAND_WITH_CUDA
namespace k = strand::kernels::cuda;

namespace {
k::IndexSpace space(std::vector<int64_t> extents) {
  k::IndexSpace s;
  s.rank = static_cast<int>(extents.size());
  for (size_t d = 0; d < extents.size(); ++d) s.extent[d] = extents[d];
  return s;
}
k::StrideSet strides(std::vector<int64_t> values) {
  k::StrideSet s;
  for (size_t d = 0; d < values.size(); ++d) s.stride[d] = values[d];
  return s;
}
}  // namespace

TEST_CASE("cuda: merge_dims folds the dimensions every operand walks as one (no GPU needed)") {
  {  // contiguous (2, 3, 4): one dimension of 24
    k::IndexSpace s = space({2, 3, 4});
    k::StrideSet a = strides({12, 4, 1});
    k::merge_dims<1>(s, {&a});
    CHECK(s.rank == 1);
    CHECK(s.extent[0] == 24);
    CHECK(a.stride[0] == 1);
    CHECK(k::is_contiguous(s, a));
  }
  {  // the first 3 columns of a (4, 6) matrix: rows stay apart
    k::IndexSpace s = space({4, 3});
    k::StrideSet a = strides({6, 1});
    k::merge_dims<1>(s, {&a});
    CHECK(s.rank == 2);
    CHECK_FALSE(k::is_contiguous(s, a));
  }
  {  // a transposed (3, 5): nothing merges
    k::IndexSpace s = space({5, 3});
    k::StrideSet a = strides({1, 5});
    k::merge_dims<1>(s, {&a});
    CHECK(s.rank == 2);
    CHECK(a.stride[0] == 1);
    CHECK(a.stride[1] == 5);
  }
  {  // extent-1 dimensions go; a broadcast operand merges only where the other one does
    k::IndexSpace s = space({2, 1, 3, 4});
    k::StrideSet out = strides({12, 12, 4, 1});
    k::StrideSet bias = strides({0, 0, 1, 0});  // broadcast over dims 0 and 3
    k::merge_dims<2>(s, {&out, &bias});
    CHECK(s.rank == 3);
    CHECK(s.extent[0] == 2);
    CHECK(s.extent[1] == 3);
    CHECK(s.extent[2] == 4);
    CHECK(bias.stride[1] == 1);
    CHECK(bias.stride[2] == 0);
  }
  {  // a single element: rank 0, offset 0 everywhere
    k::IndexSpace s = space({1, 1});
    k::StrideSet a = strides({7, 3});
    k::merge_dims<1>(s, {&a});
    CHECK(s.rank == 0);
    CHECK(s.numel() == 1);
  }
}

TEST_CASE("cuda: long sums are split into two passes, many short ones are not (no GPU needed)") {
  const k::IndexSpace none = space({});
  const k::StrideSet no_strides;
  // A whole-tensor sum of a million elements: blocks over chunks, then the partials.
  CHECK(k::sum_workspace(none, no_strides, space({1000, 1000}), strides({1000, 1})) > 1);
  CHECK(k::sum_of_squares_workspace(1'000'000) > 1);
  // Short ones run in one block or one thread per output, with no workspace.
  CHECK(k::sum_workspace(none, no_strides, space({100}), strides({1})) == 0);
  CHECK(k::sum_of_squares_workspace(1000) == 0);
  CHECK(k::sum_workspace(space({1000}), strides({1}), space({128}), strides({1000})) == 0);
  // Batch norm: the per-channel partials and means.
  kernels::BatchNormGeometry g{.batch = 128, .channels = 300, .length = 582};
  CHECK(k::batch_norm_workspace(g) >= 2 * 300);
}
#endif

namespace {
const DType kFloatTypes[] = {DType::kFloat32, DType::kFloat64};

// Two runs of `compute` on the GPU give the same bits.
template <typename Compute>
void check_repeatable(Compute compute, const char* what) {
  INFO(what);
  const Tensor first = compute().to(Device::cpu());
  const Tensor second = compute().to(Device::cpu());
  CHECK(max_abs_difference(first, second) == 0.0);
}
}  // namespace

TEST_CASE("cuda: sums in every layout match the CPU and repeat bit for bit") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    INFO("dtype " << dtype_name(dtype));
    const double tol = dtype == DType::kFloat64 ? 1e-9 : 1e-3;
    // Split: a whole tensor of 2.4M values; and a few long rows.
    const Tensor big = random_tensor({40, 300, 200}, 201, dtype);
    const Tensor gbig = gpu(big);
    check_close(ops::sum(gbig), ops::sum(big), tol, "whole-tensor sum");
    check_close(ops::sum(gbig, {1, 2}), ops::sum(big, {1, 2}), tol, "rows of 60000");
    // Block per output over a strided inner space (a conv bias gradient: over batch and length).
    check_close(ops::sum(gbig, {0, 2}), ops::sum(big, {0, 2}), tol, "channels over (B, L)");
    // Thread per output: many outputs over a strided inner space (a bias over a batch).
    const Tensor tall = random_tensor({80, 70000}, 202, dtype);
    check_close(ops::sum(gpu(tall), {0}), ops::sum(tall, {0}), tol, "columns");
    // A transposed view: nothing merges.
    check_close(ops::sum(gbig.transpose(0, 2), {0}), ops::sum(big.transpose(0, 2), {0}), tol,
                "transposed");
    check_repeatable([&] { return ops::sum(gbig); }, "whole-tensor sum");
    check_repeatable([&] { return ops::sum(gbig, {0, 2}); }, "channels");
    // Sum of squares in float64, without a float64 copy on the GPU.
    for (int64_t n : {0, 7, 5000, 3'000'000}) {
      const Tensor x = random_tensor({n}, 203, dtype);
      // Float64 sums of n squares in another order: relative to n.
      check_close(ops::sum_of_squares(gpu(x)), ops::sum_of_squares(x),
                  1e-12 * static_cast<double>(std::max<int64_t>(1, n)), "squares");
    }
    check_repeatable([&] { return ops::sum_of_squares(gbig); }, "sum of squares");
  }
}

TEST_CASE("cuda: max over the innermost dimension (a warp per line) keeps the first max and NaN") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    INFO("dtype " << dtype_name(dtype));
    // A coarse grid: many ties, so the first index must win. NaNs in two lines: the first
    // NaN wins over larger numbers.
    std::vector<double> values = ops::affine(random_tensor({64, 16, 500}, 211), 3.0, 0.0)
                                     .to(DType::kInt32)
                                     .to(DType::kFloat64)
                                     .to_vector<double>();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    values[(5 * 16 + 7) * 500 + 300] = nan;
    values[(5 * 16 + 7) * 500 + 90] = nan;
    values[(63 * 16 + 15) * 500 + 499] = nan;
    const Tensor x = Tensor::from_vector(values, {64, 16, 500}).to(dtype);
    const auto [values_gpu, indices_gpu] = ops::max(gpu(x), 2, true);
    const auto [values_cpu, indices_cpu] = ops::max(x, 2, true);
    CHECK(indices_gpu.to_vector<int64_t>() == indices_cpu.to_vector<int64_t>());
    const Tensor finite_gpu = values_gpu.to(Device::cpu());
    // NaN != NaN: compare the values through their indices, and the finite ones exactly.
    CHECK(indices_cpu.to_vector<int64_t>()[5 * 16 + 7] == 90);
    CHECK(std::isnan(finite_gpu.to(DType::kFloat64).to_vector<double>()[5 * 16 + 7]));
    const Tensor g = random_tensor(values_cpu.shape(), 212, dtype);
    check_close(ops::max_backward(gpu(g), indices_gpu, 2, x.shape()),
                ops::max_backward(g, indices_cpu, 2, x.shape()), 0.0, "max_backward");
    // Lines of exactly 33 (one lane with two elements) and of 32 (the thread-per-line path).
    for (int64_t count : {32, 33, 64}) {
      const Tensor short_lines = x.slice(2, 0, count).contiguous();
      const auto [v_gpu, i_gpu] = ops::max(gpu(short_lines), 2);
      const auto [v_cpu, i_cpu] = ops::max(short_lines, 2);
      CHECK(i_gpu.to_vector<int64_t>() == i_cpu.to_vector<int64_t>());
    }
  }
}

TEST_CASE("cuda: batch norm over long channels (chunked two-pass sums) matches the CPU") {
  STRAND_REQUIRE_GPU();
  for (const Shape& shape : {Shape{128, 30, 600}, Shape{128, 1000}, Shape{3, 5, 20000}}) {
    INFO("x " << shape_to_string(shape));
    const Tensor x = ops::affine(random_tensor(shape, 221, DType::kFloat32), 3.0, 1.5);
    const Tensor weight = random_tensor({shape[1]}, 222, DType::kFloat32);
    const Tensor bias = random_tensor({shape[1]}, 223, DType::kFloat32);
    const Tensor upstream = random_tensor(shape, 224, DType::kFloat32);
    for (bool relu : {false, true}) {
      BatchNormOptions options;
      options.relu = relu;
      const auto run = [&](Device device) {
        BatchNormStatistics statistics{Tensor::zeros({shape[1]}, DType::kFloat32, device),
                                       Tensor::ones({shape[1]}, DType::kFloat32, device),
                                       Tensor::zeros({}, DType::kFloat64, device)};
        const Tensor xd = x.to(device);
        const auto [out, mean, invstd] =
            ops::batch_norm(xd, weight.to(device), bias.to(device), statistics, options);
        const auto [grad_x, grad_weight, grad_bias] = ops::batch_norm_backward(
            upstream.to(device), xd, out, weight.to(device), mean, invstd, options);
        return std::vector<Tensor>{out.to(Device::cpu()), statistics.running_var.to(Device::cpu()),
                                   grad_x.to(Device::cpu()), grad_weight.to(Device::cpu()),
                                   grad_bias.to(Device::cpu())};
      };
      const std::vector<Tensor> cpu = run(Device::cpu());
      const std::vector<Tensor> gpu_a = run(Device::cuda());
      const std::vector<Tensor> gpu_b = run(Device::cuda());
      const char* names[] = {"out", "running_var", "grad_x", "grad_weight", "grad_bias"};
      for (size_t i = 0; i < cpu.size(); ++i) {
        INFO(names[i] << (relu ? " (relu)" : ""));
        // Sums of up to 77k float32 terms (grad_weight, grad_bias), relative to their size.
        const double scale = std::max(
            1.0, max_abs_difference(cpu[i], Tensor::zeros(cpu[i].shape(), cpu[i].dtype())));
        CHECK(max_abs_difference(gpu_a[i], cpu[i]) <= 2e-5 * scale);
        CHECK(max_abs_difference(gpu_a[i], gpu_b[i]) == 0.0);
      }
    }
  }
}

TEST_CASE(
    "cuda: the fused conv's weight backward (a warp per weight) matches the CPU at batch 512") {
  STRAND_REQUIRE_GPU();
  const Conv1DParams params{1, 1, 0, 0};
  for (bool codes_input : {true, false}) {
    INFO("codes " << codes_input);
    const int64_t batch = 512, channels = codes_input ? 4 : 6, length = 120;
    Tensor x;
    if (codes_input) {
      std::vector<uint8_t> codes(static_cast<size_t>(batch * length));
      Generator rng(231);
      for (uint8_t& code : codes) code = static_cast<uint8_t>(rng.next_below(5));
      x = Tensor::from_vector(codes, {batch, length});
    } else {
      x = random_tensor({batch, channels, length}, 231, DType::kFloat32);
    }
    const Tensor w = random_tensor({16, channels, 15}, 232, DType::kFloat32);
    const Tensor bias = random_tensor({16}, 233, DType::kFloat32);
    const auto [out, argmax] = ops::conv1d_relu_max(x, w, bias, params);
    const Tensor g = random_tensor(out.shape(), 234, DType::kFloat32);
    Tensor gx_cpu = codes_input ? Tensor() : Tensor::empty(x.shape(), DType::kFloat32);
    Tensor gw_cpu = Tensor::empty(w.shape(), DType::kFloat32);
    Tensor gb_cpu = Tensor::empty(bias.shape(), DType::kFloat32);
    dispatch<Conv1DReluMaxBackwardOp>(Device::cpu(), g, x, w, out, argmax, params, gx_cpu, gw_cpu,
                                      gb_cpu);
    const auto run_gpu = [&] {
      Tensor gx =
          codes_input ? Tensor() : Tensor::empty(x.shape(), DType::kFloat32, Device::cuda());
      Tensor gw = Tensor::empty(w.shape(), DType::kFloat32, Device::cuda());
      Tensor gb = Tensor::empty(bias.shape(), DType::kFloat32, Device::cuda());
      dispatch<Conv1DReluMaxBackwardOp>(Device::cuda(), gpu(g), gpu(x), gpu(w), gpu(out),
                                        gpu(argmax), params, gx, gw, gb);
      return std::make_pair(gw, gb);
    };
    const auto [gw_gpu, gb_gpu] = run_gpu();
    // Sums of up to 512 terms of O(1).
    check_close(gw_gpu, gw_cpu, 1e-3, "grad_w");
    check_close(gb_gpu, gb_cpu, 1e-3, "grad_bias");
    check_repeatable([&] { return run_gpu().first; }, "grad_w repeat");
  }
}

#ifdef STRAND_WITH_CUDA
TEST_CASE("cuda: TF32 is an opt-in: fp32 stays exact, tf32 stays within TF32's rounding") {
  STRAND_REQUIRE_GPU();
  const Tensor a = random_tensor({256, 512}, 241, DType::kFloat32);
  const Tensor b = random_tensor({512, 128}, 242, DType::kFloat32);
  const Tensor expected = ops::matmul(a, b);
  CHECK(float32_precision() == Float32Precision::kFp32);  // the default
  // K = 512 products of O(1): float32 within 1e-5 * K.
  check_close(ops::matmul(gpu(a), gpu(b)), expected, 5e-3, "fp32 matmul");
  set_float32_precision(Float32Precision::kTf32);
  const Tensor tf32 = ops::matmul(gpu(a), gpu(b));
  const Tensor x = random_tensor({8, 16, 300}, 243, DType::kFloat32);
  const Tensor w = random_tensor({32, 16, 9}, 244, DType::kFloat32);
  const Tensor conv_tf32 = ops::conv1d(gpu(x), gpu(w), Tensor(), {1, 1, 4, 4});
  set_float32_precision(Float32Precision::kFp32);
  // A 10-bit mantissa in the products: about 1e-3 relative per product, sums of 512 of them.
  check_close(tf32, expected, 0.5, "tf32 matmul");
  check_close(conv_tf32, ops::conv1d(x, w, Tensor(), {1, 1, 4, 4}), 0.5, "tf32 conv");
  check_close(ops::matmul(gpu(a), gpu(b)), expected, 5e-3, "fp32 again");
}

TEST_CASE("cuda: deterministic mode runs dense convs through cuDNN's deterministic algorithms") {
  STRAND_REQUIRE_GPU();
  const bool before = deterministic();
  set_deterministic(true);
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
  const Tensor x = gpu(random_tensor({16, 8, 400}, 251, DType::kFloat32));
  const Tensor w = gpu(random_tensor({24, 8, 11}, 252, DType::kFloat32));
  const Conv1DParams params{1, 1, 5, 5};
  const Tensor g = gpu(random_tensor({16, 24, 400}, 253, DType::kFloat32));
  check_repeatable([&] { return ops::conv1d(x, w, Tensor(), params); }, "forward");
  check_repeatable([&] { return ops::conv1d_backward_input(g, w, x.shape(), params); },
                   "backward input");
  check_repeatable([&] { return ops::conv1d_backward_weight(g, x, w.shape(), params); },
                   "backward weight");
  int cudnn_choices = 0;
  for (const cuda::ConvChoice& choice : cuda::conv_choices()) {
    INFO(choice.shape);
    CHECK(choice.own_ms < 0.0);  // nothing timed
    CHECK(choice.cudnn_ms < 0.0);
    cudnn_choices += choice.chosen == "cudnn" ? 1 : 0;
  }
  // cuDNN has deterministic algorithms for these passes (strand's kernels only stand in for a
  // shape it has none for).
  if (cuda::cudnn_available()) CHECK(cudnn_choices >= 2);
  set_deterministic(before);
}
#endif
