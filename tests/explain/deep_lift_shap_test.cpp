// DeepLIFT/SHAP and gradients on whole models: summation to delta on the presets and on random
// graphs of every layer with a rule, the hypothetical contributions of a linear model against
// its gradient, the references (seeded, chunk-independent, given), the N policy and bad input.
#include <doctest/doctest.h>

#include <array>

#include "autograd/grad_mode.h"
#include "explain/deep_lift_shap.h"
#include "explain/gradient.h"
#include "explain/ism.h"
#include "explain/references.h"
#include "explain_models.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/dropout.h"
#include "layers/graph.h"
#include "layers/merge.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "ops/conv1d.h"

namespace strand {
namespace {

using explain::DeepLiftShapOptions;
using explain::DeepLiftShapResult;

float largest(const Tensor& t) {
  float worst = 0.0F;
  for (const float v : t.to_vector<float>()) worst = std::max(worst, std::abs(v));
  return worst;
}

// Every sequence's attributions sum to f(x) - mean f(r) within `tolerance` relative, or within
// 1e-6 absolute: float32 rounds f(x) of order 1 at about 1e-7, and f(x) of one sequence comes
// from passes whose batches round differently, so a difference f(x) - f(r) of 1e-3 cannot be
// met to 1e-4 of itself.
DeepLiftShapResult check_converges(Model& model, const Tensor& codes, DeepLiftShapOptions options,
                                   double tolerance = 1e-4) {
  const DeepLiftShapResult result = explain::deep_lift_shap(model, codes, options);
  const auto relative = result.relative_deviation.to_vector<float>();
  const auto absolute = result.deviation.to_vector<float>();
  for (size_t i = 0; i < relative.size(); ++i) {
    INFO("sequence " << i << ": deviation " << absolute[i] << ", relative " << relative[i]);
    CHECK((relative[i] <= tolerance || absolute[i] <= 1e-6));
  }
  INFO("largest relative deviation " << largest(result.relative_deviation));
  // The scale being explained is not zero (the test would prove nothing).
  const auto fx = result.prediction.to_vector<float>();
  const auto fr = result.reference_mean.to_vector<float>();
  double spread = 0.0;
  for (size_t i = 0; i < fx.size(); ++i) spread += std::abs(fx[i] - fr[i]);
  CHECK(spread > 1e-4);
  // The actual contributions sum to the difference they explain.
  const auto actual = explain::actual_contributions(result.hypothetical, codes).to_vector<float>();
  const int64_t per_sequence = 4 * codes.size(1);
  for (size_t i = 0; i < fx.size(); ++i) {
    double total = 0.0;
    for (int64_t j = 0; j < per_sequence; ++j) total += actual[i * per_sequence + j];
    CHECK(std::abs(total - (fx[i] - fr[i])) <=
          tolerance * std::max(1.0, std::abs(static_cast<double>(fx[i] - fr[i]))) +
              result.deviation.to_vector<float>()[i] + 1e-5);
  }
  return result;
}

TEST_CASE("DeepLIFT/SHAP: summation to delta on the reference, Basset and BPNet presets") {
  auto reference = testing::preset_model("reference", {.length = 120, .tasks = 1}, 21, 0.5);
  check_converges(*reference, testing::sequences(3, 120, 22, false), {.references = 5});
  auto basset = testing::preset_model("basset", {.length = 600, .tasks = 4}, 23, 0.2);
  check_converges(*basset, testing::sequences(2, 600, 24, false),
                  {.target = {.task = 3}, .references = 3});
  check_converges(*basset, testing::sequences(1, 600, 25, false),
                  {.target = {.task = 0, .activation = true}, .references = 2});
  const cli::DataDimensions dimensions{
      .length = 2114, .tasks = 1, .profile_tracks = 2, .profile_length = 1000};
  auto bpnet = testing::preset_model("bpnet", dimensions, 26, 0.2);
  const Tensor codes = testing::sequences(1, 2114, 27, false);
  check_converges(*bpnet, codes, {.target = {.output = 1}, .references = 2});
  check_converges(*bpnet, codes, {.target = {.output = 0}, .references = 2});
}

// Random graphs of every layer with a DeepLIFT rule.
std::shared_ptr<Graph> random_graph(int variant) {
  auto graph = std::make_shared<Graph>();
  graph->add("conv", Conv1D(4, 6, 5, {.padding = Padding::kSame}), {"sequence"});
  graph->add("bn", BatchNorm1D(6), {"conv"});
  if (variant == 0) {
    graph->add("act", ReLU(), {"bn"});
  } else if (variant == 1) {
    graph->add("act", GELU(), {"bn"});
  } else {
    graph->add("act", Softplus(), {"bn"});
  }
  graph->add("pool", MaxPool1D(variant == 2 ? 4 : 2, 2), {"act"});
  graph->add("conv2", Conv1D(6, 6, 3, {.dilation = 2, .padding = Padding::kSame}), {"pool"});
  graph->add("tanh", Tanh(), {"conv2"});
  graph->add("residual", Add(), {"pool", "tanh"});
  graph->add("drop", Dropout(0.3), {"residual"});
  graph->add("gmax", GlobalMaxPool1D(), {"drop"});
  graph->add("gavg", GlobalAvgPool1D(), {"drop"});
  graph->add("joined", Concat(), {"gmax", "gavg"});
  graph->add("dense", Dense(12, 8), {"joined"});
  graph->add("sig", Sigmoid(), {"dense"});
  graph->add("dense2", Dense(8, 2), {"sig"});
  graph->add("exp", Exp(), {"dense2"});
  graph->add_output("rate", "exp");
  return graph;
}

TEST_CASE("DeepLIFT/SHAP: summation to delta on random graphs of every rule") {
  for (int variant = 0; variant < 3; ++variant) {
    CAPTURE(variant);
    auto graph = random_graph(variant);
    testing::randomize_parameters(*graph, 30 + variant, 0.6);
    const Tensor codes = testing::sequences(4, 40, 33 + variant, false);
    check_converges(*graph, codes, {.target = {.task = 1}, .references = 4});
    check_converges(*graph, codes, {.target = {.activation = true}, .references = 3});
  }
}

TEST_CASE(
    "DeepLIFT/SHAP: a linear model's hypothetical contributions are its gradient, "
    "centred on each reference's letter") {
  Sequential model;
  model.add(Conv1D(4, 3, 5));
  model.add(GlobalAvgPool1D());
  model.add(Dense(3, 1));
  testing::randomize_parameters(model, 40, 0.5);
  const Tensor codes = testing::sequences(2, 30, 41);
  const DeepLiftShapResult result =
      explain::deep_lift_shap(model, codes, {.references = 3, .keep_references = true});
  const auto g = explain::gradient(model, codes, {}).to_vector<float>();
  const auto h = result.hypothetical.to_vector<float>();
  const auto refs = result.references.to_vector<uint8_t>();
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t c = 0; c < 4; ++c) {
      for (int64_t l = 0; l < 30; ++l) {
        double expected = 0.0;
        for (int64_t k = 0; k < 3; ++k) {
          const uint8_t letter = refs[static_cast<size_t>((i * 3 + k) * 30 + l)];
          const double at_reference =
              letter < 4 ? g[static_cast<size_t>((i * 4 + letter) * 30 + l)] : 0.0;
          expected += (g[static_cast<size_t>((i * 4 + c) * 30 + l)] - at_reference) / 3.0;
        }
        CHECK(h[static_cast<size_t>((i * 4 + c) * 30 + l)] ==
              doctest::Approx(expected).epsilon(1e-5).scale(1.0));
      }
    }
  }
}

TEST_CASE("DeepLIFT/SHAP references: seeded shuffles, the same however the sequences are split") {
  auto model = testing::preset_model("reference", {.length = 60, .tasks = 1}, 50, 0.5);
  const Tensor codes = testing::sequences(3, 60, 51);
  const DeepLiftShapResult whole =
      explain::deep_lift_shap(*model, codes, {.references = 4, .seed = 9, .keep_references = true});
  const DeepLiftShapResult tail = explain::deep_lift_shap(
      *model, codes.slice(0, 2, 3).contiguous(),
      {.references = 4, .seed = 9, .batch_size = 3, .first_index = 2, .keep_references = true});
  CHECK(testing::max_abs_difference(whole.hypothetical.slice(0, 2, 3), tail.hypothetical) < 1e-6);
  CHECK(whole.references.slice(0, 2, 3).contiguous().to_vector<uint8_t>() ==
        tail.references.to_vector<uint8_t>());
  // A shuffle keeps the sequence's letters.
  const auto x = codes.to_vector<uint8_t>();
  const auto r = whole.references.to_vector<uint8_t>();
  for (int64_t k = 0; k < 4; ++k) {
    std::array<int, 5> counts_x{}, counts_r{};
    for (int64_t l = 0; l < 60; ++l) {
      ++counts_x[x[static_cast<size_t>(l)]];
      ++counts_r[r[static_cast<size_t>(k * 60 + l)]];
    }
    CHECK(counts_x == counts_r);
  }
  // Given references reproduce the run that drew them.
  const DeepLiftShapResult given = explain::deep_lift_shap(
      *model, codes,
      {.references = 4, .reference_function = explain::given_references(whole.references)});
  CHECK(testing::max_abs_difference(whole.hypothetical, given.hypothetical) < 1e-6);
}

TEST_CASE("DeepLIFT/SHAP: N bases get zero actual contributions") {
  auto model = testing::preset_model("reference", {.length = 40, .tasks = 1}, 60, 0.5);
  Tensor codes = testing::sequences(1, 40, 61);
  codes.data<uint8_t>()[5] = 4;
  const DeepLiftShapResult result = explain::deep_lift_shap(*model, codes, {.references = 3});
  const auto actual = explain::actual_contributions(result.hypothetical, codes).to_vector<float>();
  for (int64_t c = 0; c < 4; ++c) CHECK(actual[static_cast<size_t>(c * 40 + 5)] == 0.0F);
}

TEST_CASE("DeepLIFT/SHAP: zero references and unknown tasks are refused") {
  auto model = testing::preset_model("reference", {.length = 40, .tasks = 1}, 70);
  const Tensor codes = testing::sequences(1, 40, 71);
  CHECK_THROWS_WITH_AS(explain::deep_lift_shap(*model, codes, {.references = 0}),
                       doctest::Contains("references: must be in [1, 100000] references per "
                                         "sequence, got 0"),
                       Error);
  // Issue 38: 10^9 references asked for 200 GB and said only "out of host memory".
  CHECK_THROWS_WITH_AS(explain::deep_lift_shap(*model, codes, {.references = 1000000000}),
                       doctest::Contains("references: must be in [1, 100000]"), Error);
  CHECK_THROWS_WITH_AS(explain::deep_lift_shap(*model, codes, {.target = {.task = 3}}),
                       doctest::Contains("task 3 does not exist"), Error);
}

TEST_CASE("Gradient: matches finite differences of the target on a smooth model") {
  Sequential model;
  model.add(Conv1D(4, 5, 7));
  model.add(Tanh());
  model.add(GlobalAvgPool1D());
  model.add(Dense(5, 2));
  testing::randomize_parameters(model, 80, 0.5);
  const Tensor codes = testing::sequences(1, 25, 81);
  const explain::Target target{.task = 1};
  const auto g = explain::gradient(model, codes, {.target = target}).to_vector<float>();
  // f(onehot + eps e_{c,l}) - f(onehot - eps e_{c,l}), through the model on one-hot floats.
  const Tensor onehot = ops::one_hot(codes).to(DType::kFloat32);
  NoGradGuard no_grad;
  for (const int64_t at : {0, 13, 57, 99}) {
    Tensor up = onehot.clone(), down = onehot.clone();
    up.data<float>()[at] += 0.01F;
    down.data<float>()[at] -= 0.01F;
    const double numeric = (explain::target_values(model, Var(up), target).value().item() -
                            explain::target_values(model, Var(down), target).value().item()) /
                           0.02;
    CHECK(g[static_cast<size_t>(at)] == doctest::Approx(numeric).epsilon(1e-2).scale(1.0));
  }
  const auto ixg = explain::input_x_gradient(model, codes, {.target = target}).to_vector<float>();
  const auto x = codes.to_vector<uint8_t>();
  for (int64_t c = 0; c < 4; ++c) {
    for (int64_t l = 0; l < 25; ++l) {
      const size_t k = static_cast<size_t>(c * 25 + l);
      CHECK(ixg[k] == (x[static_cast<size_t>(l)] == c ? g[k] : 0.0F));
    }
  }
}

}  // namespace
}  // namespace strand
