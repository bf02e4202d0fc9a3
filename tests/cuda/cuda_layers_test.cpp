// Every layer's forward output and parameter and input gradients on the GPU against the CPU,
// at batch 128 with output lengths that are not multiples of any block size (L_out = 87, 37),
// with the Conv1D+ReLU+GlobalMaxPool1D chain both fused and unfused, on base codes and on dense
// float input, and the masked BCE on top.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "cuda_test_support.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/sequential.h"
#include "ops/loss.h"

using namespace strand;
using namespace strand::testing;

namespace {

struct LayerCase {
  std::string name;
  std::function<Sequential()> make;  // the same weights every call (seeded)
  bool codes_input;                  // (B, L) base codes; else dense (B, C, L) float32
  int64_t channels, length;
};

std::vector<LayerCase> layer_cases() {
  const auto seeded = [](std::function<void(Sequential&)> add) {
    return [add] {
      manual_seed(11);
      Sequential model;
      add(model);
      return model;
    };
  };
  return {
      {"Conv1D on codes (L_out 87)", seeded([](Sequential& m) { m.add(Conv1D(4, 16, 15)); }), true,
       4, 101},
      {"Conv1D dense, stride 2, dilation 2 (L_out 37)", seeded([](Sequential& m) {
         m.add(Conv1D(8, 12, 5, Conv1DOptions{.stride = 2, .dilation = 2}));
       }),
       false, 8, 81},
      {"ReLU", seeded([](Sequential& m) { m.add(ReLU()); }), false, 6, 87},
      {"Sigmoid", seeded([](Sequential& m) { m.add(Sigmoid()); }), false, 6, 87},
      {"GlobalMaxPool1D", seeded([](Sequential& m) { m.add(GlobalMaxPool1D()); }), false, 6, 87},
      {"Flatten + Dense", seeded([](Sequential& m) {
         m.add(Flatten());
         m.add(Dense(6 * 23, 5));
       }),
       false, 6, 23},
      {"reference chain on codes", seeded([](Sequential& m) {
         m.add(Conv1D(4, 16, 15));
         m.add(ReLU());
         m.add(GlobalMaxPool1D());
         m.add(Dense(16, 1));
       }),
       true, 4, 101},
      {"reference chain on dense input", seeded([](Sequential& m) {
         m.add(Conv1D(5, 16, 15));
         m.add(ReLU());
         m.add(GlobalMaxPool1D());
         m.add(Dense(16, 3));
       }),
       false, 5, 101},
  };
}

Tensor make_input(const LayerCase& c, int64_t batch) {
  Generator rng(77);
  if (c.codes_input) {
    std::vector<uint8_t> codes(static_cast<size_t>(batch * c.length));
    for (uint8_t& code : codes) code = static_cast<uint8_t>(rng.next_below(5));
    return Tensor::from_vector(codes, {batch, c.length});
  }
  return Tensor::uniform({batch, c.channels, c.length}, -1.0, 1.0, rng, DType::kFloat32);
}

struct Result {
  Tensor output, input_grad;
  std::vector<std::pair<std::string, Tensor>> grads;
};

Result run(const LayerCase& c, Device device, bool fusion, const Tensor& input,
           const Tensor& upstream) {
  Sequential model = c.make();
  model.set_fusion(fusion);
  model.to(device);
  Var x(input.to(device), !c.codes_input);
  Var out = model.forward(x);
  out.backward(upstream.to(device));
  Result result{
      out.value().to(Device::cpu()), c.codes_input ? Tensor() : x.grad().to(Device::cpu()), {}};
  for (auto& [name, parameter] : model.named_parameters()) {
    result.grads.emplace_back(name, parameter.grad().to(Device::cpu()));
  }
  return result;
}

// float32 sums over up to B * L_out terms: relative to the largest magnitude.
void check_relative(const Tensor& gpu_result, const Tensor& cpu_result, const std::string& what) {
  INFO(what);
  REQUIRE(gpu_result.shape() == cpu_result.shape());
  const double scale = std::max(
      1.0, max_abs_difference(cpu_result, Tensor::zeros(cpu_result.shape(), cpu_result.dtype())));
  CHECK(max_abs_difference(gpu_result, cpu_result) <= 2e-5 * scale);
}

}  // namespace

TEST_CASE("cuda: every layer's output and gradients match the CPU at batch 128, fused and not") {
  STRAND_REQUIRE_GPU();
  constexpr int64_t kBatch = 128;
  for (const LayerCase& c : layer_cases()) {
    const Tensor input = make_input(c, kBatch);
    Sequential probe = c.make();
    const Shape out_shape = probe.forward(Var(input)).value().shape();
    Generator rng(5);
    const Tensor upstream = Tensor::uniform(out_shape, -1.0, 1.0, rng, DType::kFloat32);
    for (const bool fusion : {true, false}) {
      INFO(c.name << (fusion ? " (fused)" : " (unfused)"));
      const Result cpu = run(c, Device::cpu(), fusion, input, upstream);
      const Result gpu = run(c, Device::cuda(), fusion, input, upstream);
      check_relative(gpu.output, cpu.output, "output");
      if (!c.codes_input) check_relative(gpu.input_grad, cpu.input_grad, "input gradient");
      REQUIRE(cpu.grads.size() == gpu.grads.size());
      for (size_t i = 0; i < cpu.grads.size(); ++i) {
        check_relative(gpu.grads[i].second, cpu.grads[i].second,
                       "gradient of " + cpu.grads[i].first);
      }
    }
  }
}

TEST_CASE("cuda: masked BCE loss and gradient match the CPU at batch 128") {
  STRAND_REQUIRE_GPU();
  Generator rng(9);
  const Tensor logits = Tensor::uniform({128, 3}, -6.0, 6.0, rng, DType::kFloat32);
  std::vector<float> labels(128 * 3), mask(128 * 3);
  for (size_t i = 0; i < labels.size(); ++i) {
    labels[i] = static_cast<float>(rng.next_below(2));
    mask[i] = rng.next_below(4) == 0 ? 0.0f : 1.0f;  // about a quarter masked out
  }
  const Tensor y = Tensor::from_vector(labels, {128, 3});
  const Tensor m = Tensor::from_vector(mask, {128, 3});
  const auto run_on = [&](Device device) {
    Var x(logits.to(device), true);
    Var loss = bce_with_logits(x, Var(y.to(device)), m.to(device));
    loss.backward();
    return std::make_pair(loss.value().to(Device::cpu()), x.grad().to(Device::cpu()));
  };
  const auto [cpu_loss, cpu_grad] = run_on(Device::cpu());
  const auto [gpu_loss, gpu_grad] = run_on(Device::cuda());
  CHECK(max_abs_difference(gpu_loss, cpu_loss) <= 1e-5);
  CHECK(max_abs_difference(gpu_grad, cpu_grad) <= 1e-7);
}
