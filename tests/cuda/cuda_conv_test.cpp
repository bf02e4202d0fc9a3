// GPU vs CPU oracle for every Conv1D op: dense forward / backward-input / backward-weight
// through both strand's kernels and cuDNN (each forced, then the measured choice), the one-hot
// gather and its weight backward (and ops::one_hot, cuDNN's input for it), and the fused
// Conv1D+ReLU+GlobalMaxPool forward/backward.
// Tolerances (max |gpu - cpu|): float64 1e-10; float32 1e-4 (sums of C*K or B*L_out terms of
// O(1) values, accumulated in a different order).
#include <doctest/doctest.h>

#include <functional>

#include "conv_engine_scopes.h"
#include "cuda_test_support.h"
#include "ops/conv1d.h"
#include "ops/reduction.h"
#include "tensor/cuda/conv_engine.h"

using namespace strand;
using namespace strand::testing;

namespace {

struct ConvCase {
  int64_t batch, channels, length, filters, kernel;
  Conv1DParams params;
};

const ConvCase kCases[] = {
    {3, 4, 50, 8, 5, {1, 1, 0, 0}},     // valid
    {2, 6, 41, 5, 7, {1, 1, 3, 3}},     // same (symmetric)
    {2, 3, 40, 4, 4, {1, 1, 1, 2}},     // same, even kernel (asymmetric: strand's kernel only)
    {2, 5, 61, 6, 3, {2, 3, 2, 2}},     // stride 2, dilation 3
    {1, 4, 500, 16, 15, {1, 1, 0, 0}},  // the reference model's layer
};

double conv_tol(DType dtype) { return dtype == DType::kFloat64 ? 1e-10 : 1e-4; }

[[maybe_unused]] void check_dense_conv(const ConvCase& c, DType dtype) {
  const Tensor x = random_tensor({c.batch, c.channels, c.length}, 101, dtype);
  const Tensor w = random_tensor({c.filters, c.channels, c.kernel}, 102, dtype);
  const Tensor bias = random_tensor({c.filters}, 103, dtype);
  const Tensor out = ops::conv1d(x, w, bias, c.params);
  check_close(ops::conv1d(gpu(x), gpu(w), gpu(bias), c.params), out, conv_tol(dtype), "conv1d");
  check_close(ops::conv1d(gpu(x), gpu(w), Tensor(), c.params),
              ops::conv1d(x, w, Tensor(), c.params), conv_tol(dtype), "conv1d without bias");
  const Tensor g = random_tensor(out.shape(), 104, dtype);
  check_close(ops::conv1d_backward_input(gpu(g), gpu(w), x.shape(), c.params),
              ops::conv1d_backward_input(g, w, x.shape(), c.params), conv_tol(dtype),
              "conv1d_backward_input");
  // B * L_out terms per weight.
  check_close(ops::conv1d_backward_weight(gpu(g), gpu(x), w.shape(), c.params),
              ops::conv1d_backward_weight(g, x, w.shape(), c.params), 10 * conv_tol(dtype),
              "conv1d_backward_weight");
}

[[maybe_unused]] void check_onehot_conv(const ConvCase& c, DType dtype) {
  const Tensor codes = random_codes(c.batch, c.length, 111);  // includes N (code 4)
  const Tensor w = random_tensor({c.filters, 4, c.kernel}, 112, dtype);
  const Tensor bias = random_tensor({c.filters}, 113, dtype);
  const Tensor out = ops::conv1d(codes, w, bias, c.params);
  check_close(ops::conv1d(gpu(codes), gpu(w), gpu(bias), c.params), out, conv_tol(dtype),
              "conv1d_onehot");
  const Tensor g = random_tensor(out.shape(), 114, dtype);
  check_close(ops::conv1d_backward_weight(gpu(g), gpu(codes), w.shape(), c.params),
              ops::conv1d_backward_weight(g, codes, w.shape(), c.params), 10 * conv_tol(dtype),
              "conv1d_onehot_backward_weight");
}

#ifdef STRAND_WITH_CUDA
// check(c, dtype) on every case and dtype under each policy: strand's kernels, cuDNN (where it
// can run the shape; else strand's), and the timed choice, last (its choices stay listed).
void check_each_algorithm(const std::function<void(const ConvCase&, DType)>& check) {
  for (cuda::ConvAlgorithm algorithm :
       {cuda::ConvAlgorithm::kOwn, cuda::ConvAlgorithm::kCudnn, cuda::ConvAlgorithm::kAuto}) {
    cuda::set_conv_algorithm(algorithm);
    for (const ConvCase& c : kCases) {
      for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
        INFO("algorithm " << static_cast<int>(algorithm) << " L " << c.length << " K " << c.kernel
                          << " dtype " << dtype_name(dtype));
        check(c, dtype);
      }
    }
  }
}
#endif

}  // namespace

TEST_CASE("cuda: dense Conv1D forward and backward match the CPU (each implementation)") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  check_each_algorithm(check_dense_conv);
  // Auto measured every float32 symmetric-padding shape once and remembered the choice.
  for (const cuda::ConvChoice& choice : cuda::conv_choices()) {
    MESSAGE(choice.shape << ": " << choice.chosen << " (own " << choice.own_ms << " ms, cudnn "
                         << choice.cudnn_ms << " ms)");
    CHECK((choice.chosen == "own" || choice.chosen == "cudnn"));
  }
  if (cuda::cudnn_available()) CHECK(!cuda::conv_choices().empty());
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
#endif
}

TEST_CASE("cuda: one-hot Conv1D and its weight backward match the CPU (each implementation)") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  // Own: strand's gather kernels; cuDNN: the codes expanded to a dense one-hot (float32 with
  // symmetric padding; the rest falls back to the gather kernels); auto: the timed choice.
  check_each_algorithm(check_onehot_conv);
  bool onehot_chosen = false;
  for (const cuda::ConvChoice& choice : cuda::conv_choices()) {
    onehot_chosen = onehot_chosen || choice.op.starts_with("onehot");
  }
  if (cuda::cudnn_available()) CHECK(onehot_chosen);
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
#endif
}

TEST_CASE("cuda: convolutions match the CPU with cuDNN's algorithms from its timed search") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: no search to run");
    return;
  }
  // cudnnFind*AlgorithmEx instead of the heuristics (STRAND_CUDNN_FIND=1), every pass through
  // cuDNN: dense and one-hot, float32 (float64 and asymmetric padding take strand's kernels).
  // The scopes put both settings back however the case ends.
  const CudnnFindScope find(true);
  const ConvPolicyScope policy(cuda::ConvAlgorithm::kCudnn);
  for (const ConvCase& c : kCases) {
    INFO("L " << c.length << " K " << c.kernel);
    check_dense_conv(c, DType::kFloat32);
    check_onehot_conv(c, DType::kFloat32);
  }
#endif
}

TEST_CASE("cuda: a shape whose own kernel lost clearly takes cuDNN untimed at a new batch size") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: nothing to choose");
    return;
  }
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);  // forgets every measured shape
  // A Basset-like middle layer: strand's backward-weight kernel (a thread per weight over the
  // batch) is many times slower than cuDNN's.
  const Conv1DParams params{1, 1, 5, 5};
  const auto backward_weight = [&](int64_t batch) {
    const Tensor x = gpu(random_tensor({batch, 96, 120}, 131, DType::kFloat32));
    const Tensor g = gpu(random_tensor({batch, 64, 120}, 132, DType::kFloat32));
    (void)ops::conv1d_backward_weight(g, x, {64, 96, 11}, params);
  };
  backward_weight(64);
  backward_weight(16);
  const auto choices = cuda::conv_choices();
  const auto find = [&](const std::string& batch) {
    for (const cuda::ConvChoice& c : choices) {
      if (c.op == "backward_weight" && c.shape.find(batch) != std::string::npos) return c;
    }
    FAIL("no backward_weight choice for " << batch);
    return cuda::ConvChoice{};
  };
  const cuda::ConvChoice full = find(" B64 "), partial = find(" B16 ");
  MESSAGE("B64: own " << full.own_ms << " ms, cudnn " << full.cudnn_ms << " ms");
  if (full.chosen == "cudnn" && full.own_ms >= 4.0 * full.cudnn_ms) {
    CHECK(partial.chosen == "cudnn");
    CHECK(partial.own_ms < 0.0);  // not run, not timed
  } else {
    CHECK(partial.own_ms >= 0.0);  // no clear loss: B16 is measured on its own
  }
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
#endif
}

TEST_CASE("cuda: one_hot of device codes matches the CPU's, N included") {
  STRAND_REQUIRE_GPU();
  const Tensor codes = random_codes(3, 257, 141);  // includes N (code 4)
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    const Tensor on_gpu = ops::one_hot(gpu(codes), dtype);
    CHECK(on_gpu.device().is_cuda());
    check_close(on_gpu, ops::one_hot(codes, dtype), 0.0, "one_hot");
  }
}

TEST_CASE("cuda: fused Conv1D+ReLU+GlobalMaxPool matches the CPU, first argmax on ties") {
  STRAND_REQUIRE_GPU();
  for (const ConvCase& c : kCases) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      for (bool codes_input : {true, false}) {
        INFO("L " << c.length << " codes " << codes_input << " dtype " << dtype_name(dtype));
        const Tensor x = codes_input ? random_codes(c.batch, c.length, 121)
                                     : random_tensor({c.batch, c.channels, c.length}, 121, dtype);
        const int64_t channels = codes_input ? 4 : c.channels;
        // Integer weights and bias: many exact ties between positions, so argmax order is
        // tested. (A fractional bias makes each device's rounding depend on its order of
        // addition: the CPU adds tap pairs, the GPU single taps, and ties break apart.)
        const auto integers = [&](const Shape& shape, uint64_t seed) {
          return ops::affine(random_tensor(shape, seed, dtype), 2.0, 0.0)
              .to(DType::kInt32)
              .to(dtype);
        };
        const Tensor w = integers({c.filters, channels, c.kernel}, 122);
        const Tensor bias = integers({c.filters}, 123);
        const auto [out_cpu, argmax_cpu] = ops::conv1d_relu_max(x, w, bias, c.params);
        const auto [out_gpu, argmax_gpu] =
            ops::conv1d_relu_max(gpu(x), gpu(w), gpu(bias), c.params);
        check_close(out_gpu, out_cpu, conv_tol(dtype), "conv1d_relu_max out");
        if (codes_input) {  // exact integer sums: the argmax must agree exactly
          CHECK(argmax_gpu.to_vector<int64_t>() == argmax_cpu.to_vector<int64_t>());
        }
        // Backward through the CPU's argmax on both devices.
        const Tensor g = random_tensor(out_cpu.shape(), 124, dtype);
        const bool dense = !codes_input;
        Tensor gx_cpu = dense ? Tensor::empty(x.shape(), dtype) : Tensor();
        Tensor gw_cpu = Tensor::empty(w.shape(), dtype),
               gb_cpu = Tensor::empty(bias.shape(), dtype);
        dispatch<Conv1DReluMaxBackwardOp>(Device::cpu(), g, x, w, out_cpu, argmax_cpu, c.params,
                                          gx_cpu, gw_cpu, gb_cpu);
        Tensor gx_gpu = dense ? Tensor::empty(x.shape(), dtype, Device::cuda()) : Tensor();
        Tensor gw_gpu = Tensor::empty(w.shape(), dtype, Device::cuda());
        Tensor gb_gpu = Tensor::empty(bias.shape(), dtype, Device::cuda());
        dispatch<Conv1DReluMaxBackwardOp>(Device::cuda(), gpu(g), gpu(x), gpu(w), gpu(out_cpu),
                                          gpu(argmax_cpu), c.params, gx_gpu, gw_gpu, gb_gpu);
        check_close(gw_gpu, gw_cpu, conv_tol(dtype), "fused grad_w");
        check_close(gb_gpu, gb_cpu, conv_tol(dtype), "fused grad_bias");
        if (dense) check_close(gx_gpu, gx_cpu, conv_tol(dtype), "fused grad_x");
      }
    }
  }
}

TEST_CASE("cuda: a one-hot conv through cuDNN hands its expansion to the weight gradient") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: the one-hot passes gather, nothing is expanded");
    return;
  }
  const Conv1DParams params{1, 1, 3, 3};
  const Tensor codes = random_codes(3, 50, 151);  // includes N (code 4)
  const Tensor w = random_tensor({6, 4, 7}, 152, DType::kFloat32);
  const Tensor bias = random_tensor({6}, 153, DType::kFloat32);
  {
    const ConvPolicyScope policy(cuda::ConvAlgorithm::kCudnn);
    Tensor expanded;
    const Tensor out = ops::conv1d(gpu(codes), gpu(w), gpu(bias), params, &expanded);
    REQUIRE(expanded.defined());
    check_close(expanded, ops::one_hot(codes), 0.0, "the forward's expansion");
    check_close(out, ops::conv1d(codes, w, bias, params), 1e-4, "conv1d_onehot (cuDNN)");
    // The weight gradient's one-hot pass (through cuDNN) reads that expansion: the CPU's.
    Var w_gpu(gpu(w), true), b_gpu(gpu(bias), true), w_cpu(w.clone(), true),
        b_cpu(bias.clone(), true);
    const Tensor g = random_tensor(out.shape(), 154, DType::kFloat32);
    sum(conv1d(Var(gpu(codes)), w_gpu, b_gpu, params) * Var(gpu(g))).backward();
    sum(conv1d(Var(codes), w_cpu, b_cpu, params) * Var(g)).backward();
    check_close(w_gpu.grad(), w_cpu.grad(), 1e-3, "grad_w from the expansion");
    check_close(b_gpu.grad(), b_cpu.grad(), 1e-3, "grad_bias");
  }
  const ConvPolicyScope policy(cuda::ConvAlgorithm::kOwn);
  Tensor none;
  (void)ops::conv1d(gpu(codes), gpu(w), gpu(bias), params, &none);
  CHECK_FALSE(none.defined());  // the gather kernel expands nothing
#endif
}
