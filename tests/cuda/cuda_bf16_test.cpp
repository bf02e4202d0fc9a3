// --precision bf16 on the GPU (tensor/precision.h) against the CPU's bf16 path (needs a CPU
// with AVX-512 BF16 or AMX, else the CPU side runs float32 and the tolerance says so): the cast
// kernels' rounding, cuBLAS's bfloat16 matmul (float32 output), cuDNN's bfloat16 dense
// convolutions (bfloat16 output, widened), untimed and keyed by the precision, the one-hot passes
// staying float32, and a few training steps of a model with dense convolutions, BatchNorm and
// Dense layers.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cuda_test_support.h"
#include "kernels/bfloat16.h"
#include "kernels/cpu/gemm_bf16.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/losses.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "ops/conv1d.h"
#include "ops/matmul.h"
#include "optim/adam.h"
#include "tensor/precision.h"
#ifdef STRAND_WITH_CUDA
#include "tensor/cuda/bfloat16_staging.h"
#include "tensor/cuda/conv_engine.h"
#include "tensor/cuda/device.h"
#endif

using namespace strand;
using namespace strand::testing;

#ifdef STRAND_WITH_CUDA
namespace {

// Whether the CPU oracle runs bf16 too; else it runs fp32 and the comparisons allow bf16's
// rounding of the operands as well.
bool cpu_bf16() { return kernels::cpu::bf16_gemm_available(); }

// Every |gpu - cpu| <= relative * |cpu| + absolute.
void check_relative(const Tensor& gpu_result, const Tensor& cpu_result, double relative,
                    double absolute, const char* what) {
  INFO(what);
  REQUIRE(gpu_result.shape() == cpu_result.shape());
  const auto g = gpu_result.to(Device::cpu()).to(DType::kFloat64).to_vector<double>();
  const auto c = cpu_result.to(DType::kFloat64).to_vector<double>();
  double worst_excess = 0.0;
  for (size_t i = 0; i < g.size(); ++i) {
    worst_excess =
        std::max(worst_excess, std::abs(g[i] - c[i]) - relative * std::abs(c[i]) - absolute);
  }
  CHECK_MESSAGE(worst_excess <= 0.0, what, ": exceeds the tolerance by ", worst_excess);
}

uint32_t bits_of(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

TEST_CASE("cuda: bf16 casts round to nearest even as the CPU does, specials included") {
  STRAND_REQUIRE_GPU();
  std::vector<float> values = random_values<float>(4096, 301);
  for (size_t i = 0; i < values.size(); i += 5) values[i] *= 3e37F;
  const uint32_t specials[] = {0x7F800000U, 0xFF800000U, 0x7FC00000U, 0x7F800001U,
                               0x3F808000U, 0x3F818000U, 0x00008000U, 0x00018000U,
                               0x7F7FFFFFU, 0x80000001U, 0x00000000U, 0x80000000U};
  for (size_t i = 0; i < std::size(specials); ++i) {
    float value = 0.0F;
    std::memcpy(&value, &specials[i], sizeof value);
    values[i * 300] = value;
  }
  const Tensor host = Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
  const Tensor device_values = gpu(host);
  const Device device = Device::cuda();
  const Tensor rounded = cuda::bfloat16_copy(device_values.raw_data(), host.numel(), device);
  Tensor widened = Tensor::empty(host.shape(), DType::kFloat32, device);
  cuda::widen_bfloat16(rounded, widened.raw_data(), host.numel(), device);
  const std::vector<uint8_t> bytes = rounded.to(Device::cpu()).to_vector<uint8_t>();
  const std::vector<float> back = widened.to(Device::cpu()).to_vector<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    CAPTURE(i);
    uint16_t bits = 0;
    std::memcpy(&bits, bytes.data() + 2 * i, sizeof bits);
    CHECK(bits == kernels::bfloat16_from_float(values[i]));
    CHECK(bits_of(back[i]) == bits_of(kernels::float_from_bfloat16(bits)));
  }
}

TEST_CASE("cuda: bf16 matmul (cuBLAS, bfloat16 operands, float32 output) follows the CPU's") {
  STRAND_REQUIRE_GPU();
  const Tensor a = random_tensor({256, 512}, 311, DType::kFloat32);
  const Tensor b = random_tensor({512, 96}, 312, DType::kFloat32);
  const Tensor fp32 = ops::matmul(a, b);
  const Float32PrecisionScope scope(Float32Precision::kBf16);
  const Tensor expected = cpu_bf16() ? ops::matmul(a, b) : fp32;
  // Both sides sum exact products of the same bfloat16 operands in float32, in another order:
  // K = 512 products of O(1). Against an fp32 CPU, each product also errs by up to 2^-8.
  const double tolerance = cpu_bf16() ? 2e-3 : 0.3;
  check_close(ops::matmul(gpu(a), gpu(b)), expected, tolerance, "bf16 matmul");
  // Transposed views (the Dense layer's gradients: G @ W^T, X^T @ G) are cast as laid out.
  const Tensor g = random_tensor({256, 96}, 313, DType::kFloat32);
  const Tensor expected_t = ops::matmul(g, b.transpose(0, 1));
  check_close(ops::matmul(gpu(g), gpu(b).transpose(0, 1)), expected_t, tolerance, "G @ W^T");
  check_close(ops::matmul(gpu(a).transpose(0, 1), gpu(g)), ops::matmul(a.transpose(0, 1), g),
              cpu_bf16() ? 2e-3 : 0.3, "X^T @ G");
  // bf16 took effect: the result is farther from the float32 product than float32 sums explain.
  CHECK(max_abs_difference(ops::matmul(gpu(a), gpu(b)), fp32) > 1e-3);
}

TEST_CASE(
    "cuda: bf16 dense convolutions run on cuDNN's bfloat16 math, untimed, and follow the CPU") {
  STRAND_REQUIRE_GPU();
  if (!cuda::cudnn_available()) STRAND_SKIP("this build has no cuDNN");
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);  // clears remembered choices
  cuda::clear_planned_batch_sizes();                     // one batch size: three choices
  const Tensor x = random_tensor({8, 32, 300}, 321, DType::kFloat32);
  const Tensor w = random_tensor({48, 32, 9}, 322, DType::kFloat32);
  const Conv1DParams params{1, 1, 4, 4};
  const Tensor grad_out = random_tensor({8, 48, 300}, 324, DType::kFloat32);
  const Float32PrecisionScope scope(Float32Precision::kBf16);
  // cuDNN rounds each result to bfloat16 (2^-9 relative); the CPU keeps float32 sums. Against an
  // fp32 CPU the operands' rounding adds about 2^-8 relative per product (sums of 288 or 2400).
  const double relative = cpu_bf16() ? 1.0 / 256 : 1.0 / 16;
  // (No bias: the rounding is relative to the convolution itself.) Near zero, the two float32
  // summation orders differ by up to K * 2^-24 * sum |x w|.
  const double absolute = cpu_bf16() ? 2e-3 : 0.5;
  check_relative(ops::conv1d(gpu(x), gpu(w), Tensor(), params), ops::conv1d(x, w, Tensor(), params),
                 relative, absolute, "forward");
  check_relative(ops::conv1d_backward_input(gpu(grad_out), gpu(w), x.shape(), params),
                 ops::conv1d_backward_input(grad_out, w, x.shape(), params), relative, absolute,
                 "backward input");
  check_relative(ops::conv1d_backward_weight(gpu(grad_out), gpu(x), w.shape(), params),
                 ops::conv1d_backward_weight(grad_out, x, w.shape(), params), relative,
                 absolute * 10, "backward weight");
  // Each pass was chosen untimed (cuDNN, no measurement), under a key naming the precision.
  int bf16_choices = 0;
  for (const cuda::ConvChoice& choice : cuda::conv_choices()) {
    if (choice.shape.find(" bf16 ") == std::string::npos) continue;
    ++bf16_choices;
    CAPTURE(choice.shape);
    CHECK(choice.chosen == "cudnn");
    CHECK(choice.own_ms < 0.0);
    CHECK(choice.cudnn_ms < 0.0);
  }
  CHECK(bf16_choices == 3);
}

TEST_CASE("cuda: under bf16 the one-hot convolution stays float32") {
  STRAND_REQUIRE_GPU();
  Generator rng(331);
  std::vector<uint8_t> values(8 * 500);
  for (uint8_t& code : values) code = static_cast<uint8_t>(rng.next_below(5));
  const Tensor codes = Tensor::from_vector(values, {8, 500});
  const Tensor w = random_tensor({64, 4, 19}, 332, DType::kFloat32);
  const Tensor bias = random_tensor({64}, 333, DType::kFloat32);
  const Tensor expected = ops::conv1d(codes, w, bias, {1, 1, 0, 0});  // float32 on the CPU
  const Float32PrecisionScope scope(Float32Precision::kBf16);
  // Sums of 19 weights: float32 rounding, whichever implementation the engine chose.
  check_close(ops::conv1d(gpu(codes), gpu(w), gpu(bias), {1, 1, 0, 0}), expected, 1e-5,
              "one-hot forward");
}

TEST_CASE("cuda: bf16 training steps of a conv-BatchNorm-Dense model follow the CPU's bf16 run") {
  STRAND_REQUIRE_GPU();
  // One-hot conv, a dense conv + BatchNorm + ReLU + MaxPool, Flatten, Dense + ReLU, Dense.
  const auto build = [] {
    manual_seed(7);
    Sequential model;
    model.add(Conv1D(4, 32, 11));
    model.add(ReLU());
    model.add(MaxPool1D(2));
    model.add(Conv1D(32, 32, 7));
    model.add(BatchNorm1D(32));
    model.add(ReLU());
    model.add(MaxPool1D(4));
    model.add(Flatten());
    model.add(Dense(32 * 13, 64));
    model.add(ReLU());
    model.add(Dense(64, 1));
    model.add(Sigmoid());
    return model;
  };
  Generator rng(341);
  std::vector<Tensor> codes, labels;
  for (int step = 0; step < 8; ++step) {
    std::vector<uint8_t> c(32 * 130);
    for (uint8_t& code : c) code = static_cast<uint8_t>(rng.next_below(4));
    std::vector<float> y(32);
    for (float& label : y) label = static_cast<float>(rng.next_below(2));
    codes.push_back(Tensor::from_vector(c, {32, 130}));
    labels.push_back(Tensor::from_vector(y, {32, 1}));
  }
  const auto losses = [&](Device device) {
    Sequential model = build();
    model.to(device);
    Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-3});
    std::vector<double> out;
    for (size_t step = 0; step < codes.size(); ++step) {
      optimizer.zero_grad();
      const Var loss =
          BinaryCrossEntropy()(model.forward_layers(Var(codes[step].to(device)), model.size() - 1),
                               Var(labels[step].to(device)));
      loss.backward();
      optimizer.step();
      out.push_back(loss.value().item());
    }
    return out;
  };
  const Float32PrecisionScope scope(Float32Precision::kBf16);
  const std::vector<double> cpu = losses(Device::cpu());
  const std::vector<double> gpu_losses = losses(Device::cuda());
  for (size_t step = 0; step < cpu.size(); ++step) {
    CAPTURE(step);
    // bf16 rounding of the convolutions' outputs on the GPU, carried through 8 Adam steps.
    CHECK(std::abs(gpu_losses[step] - cpu[step]) <= (cpu_bf16() ? 5e-3 : 2e-2));
  }
}
#endif
