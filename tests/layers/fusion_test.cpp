// Sequential's fused runs (layers/fusion.h) against the unfused chain: a small Basset-like
// model (Conv1D -> BatchNorm1D -> ReLU -> MaxPool1D, Dense -> BatchNorm1D -> ReLU) and a plain
// conv stack (Conv1D -> ReLU) give the same outputs, parameter gradients and running statistics
// with fusion on and off, on base codes and on float input.
#include <doctest/doctest.h>

#include <vector>

#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/fusion.h"
#include "layers/losses.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "test_helpers.h"

namespace strand {
namespace {

Sequential basset_like_model() {
  Generator generator(5);
  Sequential model;
  model.add(Conv1D(4, 12, 5, {}, generator));
  model.add(BatchNorm1D(12));
  model.add(ReLU());
  model.add(MaxPool1D(3));
  model.add(Conv1D(12, 8, 3, {.stride = 2, .dilation = 2}, generator));
  model.add(ReLU());
  model.add(Flatten());
  model.add(Dense(8 * 4, 10, true, generator));
  model.add(BatchNorm1D(10));
  model.add(ReLU());
  model.add(Dense(10, 2, true, generator));
  model.add(Sigmoid());
  return model;
}

// Everything a training step leaves: the logits, then every parameter's gradient and every
// buffer (running statistics), in named order; then the input's gradient for float input.
std::vector<std::vector<float>> training_step(Sequential& model, const Var& x, bool fused) {
  model.set_fusion(fused);
  model.zero_grad();
  model.train();
  Var logits = model.forward_layers(x, model.size() - 1);
  const Var labels(Tensor::from_vector<float>({1, 0, 0, 1, 1, 1, 0, 0}, {4, 2}));
  BinaryCrossEntropy loss;
  loss(logits, labels).backward();
  std::vector<std::vector<float>> results = {logits.value().to_vector<float>()};
  for (auto& [name, p] : model.named_parameters()) {
    results.push_back(p.requires_grad() ? p.grad().to_vector<float>()
                                        : p.value().to(DType::kFloat32).to_vector<float>());
  }
  if (x.requires_grad()) results.push_back(x.grad().to_vector<float>());
  return results;
}

}  // namespace

TEST_CASE("fused BatchNorm1D -> ReLU and Conv1D -> ReLU equal the unfused chain") {
  for (const bool codes_input : {true, false}) {
    CAPTURE(codes_input);
    const auto input = [&] {
      return codes_input ? Var(testing::random_codes(4, 40, 3))
                         : Var(testing::random_tensor({4, 4, 40}, 4, DType::kFloat32), true);
    };
    // Two fresh models: the running statistics of one step must agree too.
    Sequential unfused_model = basset_like_model();
    Sequential fused_model = basset_like_model();
    const auto unfused = training_step(unfused_model, input(), false);
    const auto fused = training_step(fused_model, input(), true);
    REQUIRE(unfused.size() == fused.size());
    for (size_t t = 0; t < unfused.size(); ++t) {
      CAPTURE(t);
      REQUIRE(unfused[t].size() == fused[t].size());
      for (size_t i = 0; i < unfused[t].size(); ++i) {
        CHECK(fused[t][i] == doctest::Approx(unfused[t][i]).epsilon(1e-4));
      }
    }
  }
}

}  // namespace strand

namespace strand {
namespace {

TEST_CASE("BatchNorm1D -> ReLU -> MaxPool1D is one fused run, BatchNorm1D -> ReLU two layers") {
  BatchNorm1D norm(4);
  ReLU relu;
  MaxPool1D pool(2);
  AvgPool1D average(2);
  const std::vector<Layer*> pooled = {&norm, &relu, &pool};
  const std::vector<Layer*> averaged = {&norm, &relu, &average};
  CHECK(fused_run_length(pooled) == 3);
  CHECK(fused_run_length(averaged) == 2);
  // On the CPU the fused run computes the chain: the same values.
  const Var x(testing::random_tensor({3, 4, 10}, 71, DType::kFloat32));
  norm.eval();
  const Tensor fused = forward_fused_run(pooled, 3, x).value();
  const Tensor chain = pool.forward(relu.forward(norm.forward(x))).value();
  CHECK(fused.to_vector<float>() == chain.to_vector<float>());
}

}  // namespace
}  // namespace strand
