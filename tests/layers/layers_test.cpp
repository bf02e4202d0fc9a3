// Layers and Sequential: parameter names and counts, summary(), fusion equivalence, shape
// errors that name the layer.
#include <doctest/doctest.h>

#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/losses.h"
#include "layers/sequential.h"
#include "test_helpers.h"

namespace strand {
namespace {

Sequential reference_model(uint64_t seed) {
  Generator generator(seed);
  Sequential model;
  model.add(Conv1D(4, 16, 15, {}, generator));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(16, 1, true, generator));
  model.add(Sigmoid());
  return model;
}

}  // namespace

TEST_CASE("the reference model has 993 parameters with dotted names") {
  Sequential model = reference_model(1);
  CHECK(model.parameter_count() == 993);
  std::vector<std::string> names;
  for (auto& [name, p] : model.named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"});
  const std::string table = model.summary({500});
  CHECK(table.find("0 (Conv1D)") != std::string::npos);
  CHECK(table.find("(None, 16, 486)") != std::string::npos);
  CHECK(table.find("976") != std::string::npos);
  CHECK(table.find("Total params: 993") != std::string::npos);
  model.layer(0)->set_trainable(false);
  CHECK(model.summary({500}).find("Trainable params: 17") != std::string::npos);
}

TEST_CASE("an impossible model is reported with the layer that cannot take its input") {
  Sequential model;
  model.add(Conv1D(4, 8, 5));
  model.add(Dense(8, 1));
  CHECK_THROWS_WITH_AS(model.output_shape({100}), doctest::Contains("layer 1 (Dense)"), Error);
  Sequential too_short;
  too_short.add(Conv1D(4, 8, 50));
  CHECK_THROWS_WITH_AS(too_short.summary({20}), doctest::Contains("shorter than the kernel"),
                       Error);
}

TEST_CASE("fused Conv1D+ReLU+GlobalMaxPool1D equals the unfused chain, values and gradients") {
  for (bool codes_input : {true, false}) {
    Sequential model = reference_model(2);
    Var x = codes_input ? Var(testing::random_codes(6, 60, 3))
                        : Var(testing::random_tensor({6, 4, 60}, 4, DType::kFloat32), true);
    const Var labels(Tensor::from_vector<float>({1, 0, 1, 1, 0, 0}, {6, 1}));
    BinaryCrossEntropy loss;
    std::vector<std::vector<float>> grads[2];
    std::vector<float> outputs[2];
    for (int fused = 0; fused < 2; ++fused) {
      model.set_fusion(fused == 1);
      model.zero_grad();
      Var logits = model.forward_layers(x, model.size() - 1);
      loss(logits, labels).backward();
      outputs[fused] = logits.value().to_vector<float>();
      for (const Var& p : model.parameters()) grads[fused].push_back(p.grad().to_vector<float>());
      if (!codes_input) grads[fused].push_back(x.grad().to_vector<float>()), x.zero_grad();
    }
    for (size_t i = 0; i < outputs[0].size(); ++i)
      CHECK(outputs[0][i] == doctest::Approx(outputs[1][i]));
    for (size_t p = 0; p < grads[0].size(); ++p) {
      for (size_t i = 0; i < grads[0][p].size(); ++i) {
        CHECK(grads[0][p][i] == doctest::Approx(grads[1][p][i]).epsilon(1e-4));
      }
    }
  }
}

TEST_CASE("conv1d same padding keeps the length") {
  Conv1D conv(4, 3, 4, {1, 2, Padding::kSame, true});
  CHECK(conv.output_shape({4, 50}) == Shape{3, 50});
  Var y = conv.forward(Var(testing::random_codes(2, 50, 5)));
  CHECK(y.shape() == Shape{2, 3, 50});
  CHECK_THROWS_WITH_AS(Conv1D(4, 3, 4, {2, 1, Padding::kSame, true}),
                       doctest::Contains("'same' padding needs stride 1"), Error);
}

TEST_CASE("modules freeze, move and re-initialise deterministically") {
  Sequential a = reference_model(7);
  Sequential b = reference_model(7);
  Sequential c = reference_model(8);
  CHECK(a.parameters()[0].value().to_vector<float>() ==
        b.parameters()[0].value().to_vector<float>());
  CHECK(a.parameters()[0].value().to_vector<float>() !=
        c.parameters()[0].value().to_vector<float>());
  Generator generator(7);
  c.reset_parameters(generator);
  CHECK(a.parameters()[0].value().to_vector<float>() ==
        c.parameters()[0].value().to_vector<float>());
  a.set_trainable(false);
  CHECK(a.trainable_parameters().empty());
}

}  // namespace strand
