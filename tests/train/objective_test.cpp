// Objectives: terms bound to model outputs (the final-activation rule), targets taken from the
// batch (labels, profiles and their log counts), the masked losses, and the weighted sum.
#include <doctest/doctest.h>

#include <cmath>

#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/graph.h"
#include "layers/sequential.h"
#include "ops/elementwise.h"
#include "test_helpers.h"
#include "train/objective.h"

namespace strand::train {
namespace {

using testing::max_abs_difference;

TEST_CASE("objective: a loss trains on what comes before the activation it applies itself") {
  const Var x(Tensor::from_vector(std::vector<float>{-1.0f, 0.5f, 2.0f}, {3, 1}));
  const BinaryCrossEntropy bce;
  const MeanSquaredError mse;
  const PoissonNLL poisson;
  const MultinomialNLL multinomial;
  // BCE after a Sigmoid: the logits themselves.
  CHECK(max_abs_difference(term_input(x, Activation::kSigmoid, bce).value(), x.value()) == 0.0);
  // MSE after a Sigmoid: the probabilities.
  CHECK(max_abs_difference(term_input(x, Activation::kSigmoid, mse).value(), sigmoid(x).value()) ==
        0.0);
  CHECK(max_abs_difference(term_input(x, Activation::kExp, poisson).value(), x.value()) == 0.0);
  CHECK(max_abs_difference(term_input(x, Activation::kSoftmax, multinomial).value(), x.value()) ==
        0.0);
  // A loss that applies an activation the output does not end in is refused, saying what to do.
  CHECK_THROWS_WITH_AS(
      term_input(x, Activation::kIdentity, bce),
      "loss 'binary_crossentropy' applies a sigmoid itself, so the output must end in Sigmoid "
      "(training feeds it what comes before; predictions apply it)",
      Error);
  CHECK_THROWS_WITH_AS(term_input(x, Activation::kSigmoid, poisson),
                       doctest::Contains("must end in Exp (training feeds it what comes before; "
                                         "predictions apply it), but it ends in sigmoid"),
                       Error);
}

TEST_CASE("objective: binding checks the output names and activations of the model") {
  Graph g;
  g.add("conv", Conv1D(4, 2, 3), {"sequence"});
  g.add("pool", GlobalMaxPool1D(), {"conv"});
  g.add("logit", Dense(2, 1), {"pool"});
  g.add("prob", Sigmoid(), {"logit"});
  g.add("level", Dense(2, 1), {"pool"});
  g.add_output("bound", "prob");
  g.add_output("level", "level");
  const Objective good({{.output = "bound", .loss = std::make_shared<BinaryCrossEntropy>()},
                        {.output = "level", .loss = std::make_shared<MeanSquaredError>()}});
  CHECK(good.bind(g) == std::vector<size_t>{0, 1});
  const Objective unknown({{.output = "profile", .loss = std::make_shared<MultinomialNLL>()}});
  CHECK_THROWS_WITH_AS(unknown.bind(g), doctest::Contains("no output 'profile'"), Error);
  const Objective mismatch({{.output = "level", .loss = std::make_shared<BinaryCrossEntropy>()}});
  CHECK_THROWS_WITH_AS(mismatch.bind(g),
                       doctest::Contains("output 'level': loss 'binary_crossentropy' applies a "
                                         "sigmoid itself"),
                       Error);
  CHECK_THROWS_WITH_AS(Objective({}), "objective: no loss terms", Error);
  CHECK_THROWS_WITH_AS(Objective({{.loss = std::make_shared<MeanSquaredError>(), .weight = -1.0}}),
                       "objective: term 0 (mse) has weight -1, expected a finite number > 0",
                       Error);
}

TEST_CASE("objective: profile targets and their log counts come from the batch") {
  TrainingBatch batch;
  batch.size = 2;
  batch.labels = Tensor::zeros({2, 1});
  // (B 2, S 2, Lp 3)
  batch.profile =
      Tensor::from_vector(std::vector<float>{1, 0, 2, 0, 0, 0, 3, 3, 3, 1, 1, 0}, {2, 2, 3});
  LossTerm term{.loss = std::make_shared<MeanSquaredError>(), .target = Target::kLogCounts};
  const std::vector<double> per_track =
      Objective::target_of(term, batch, DType::kFloat64).to_vector<double>();
  CHECK(per_track ==
        std::vector<double>{std::log(4.0), std::log(1.0), std::log(10.0), std::log(3.0)});
  term.target = Target::kLogTotalCounts;
  const Tensor total = Objective::target_of(term, batch, DType::kFloat64);
  CHECK(total.shape() == Shape{2, 1});
  CHECK(total.to_vector<double>() == std::vector<double>{std::log(4.0), std::log(12.0)});
  term.target = Target::kProfile;
  CHECK(Objective::target_of(term, batch, DType::kFloat32).shape() == Shape{2, 2, 3});
  TrainingBatch no_profile;
  no_profile.labels = Tensor::zeros({2, 1});
  CHECK_THROWS_WITH_AS(Objective::target_of(term, no_profile, DType::kFloat32),
                       doctest::Contains("the data has no per-position profile"), Error);
  CHECK(parse_target("log_counts") == Target::kLogCounts);
  CHECK_THROWS_WITH_AS(parse_target("counts"), doctest::Contains("unknown target 'counts'"), Error);
}

TEST_CASE("objective: masked MSE and Poisson NLL average over the valid labels only") {
  const Var prediction(Tensor::from_vector(std::vector<double>{1.0, 2.0, 3.0, 4.0}, {2, 2}), true);
  const Var target(Tensor::from_vector(std::vector<double>{0.0, 2.0, 1.0, 100.0}, {2, 2}));
  const Tensor mask = Tensor::from_vector(std::vector<double>{1.0, 1.0, 1.0, 0.0}, {2, 2});
  const MeanSquaredError mse;
  // (1 + 0 + 4) / 3
  CHECK(mse.masked(prediction, target, mask).value().item() == doctest::Approx(5.0 / 3.0));
  const PoissonNLL poisson;
  const double expected =
      ((std::exp(1.0) - 0.0) + (std::exp(2.0) - 4.0) + (std::exp(3.0) - 3.0)) / 3.0;
  CHECK(poisson.masked(prediction, target, mask).value().item() == doctest::Approx(expected));
  // Every label masked: zero, not NaN.
  CHECK(mse.masked(prediction, target, Tensor::zeros({2, 2}, DType::kFloat64)).value().item() ==
        0.0);
}

TEST_CASE("objective: the batch loss is the weighted sum of the terms") {
  manual_seed(2);
  Graph g;
  g.add("conv", Conv1D(4, 3, 3), {"sequence"});
  g.add("pool", GlobalMaxPool1D(), {"conv"});
  g.add("logit", Dense(3, 2), {"pool"});
  g.add("prob", Sigmoid(), {"logit"});
  g.add_output("bound", "prob");
  g.add_output("level", "logit");
  const Objective objective(
      {{.output = "bound", .loss = std::make_shared<BinaryCrossEntropy>()},
       {.output = "level", .loss = std::make_shared<MeanSquaredError>(), .weight = 0.5}});
  TrainingBatch batch;
  batch.size = 3;
  batch.codes = testing::random_codes(3, 9, 1);
  batch.labels = Tensor::from_vector(std::vector<float>{1, 0, 0, 1, 1, 1}, {3, 2});
  batch.label_mask = Tensor::ones({3, 2});
  const std::vector<size_t> bound = objective.bind(g);
  const std::vector<Var> outputs = g.forward_outputs(batch.inputs());
  std::vector<Var> terms;
  const Var total = objective.loss(g, bound, outputs, batch, &terms);
  REQUIRE(terms.size() == 2);
  const double bce = bce_with_logits(outputs[0], Var(batch.labels)).value().item();
  const double mse =
      (*std::make_shared<MeanSquaredError>())(outputs[1], Var(batch.labels)).value().item();
  CHECK(terms[0].value().item() == doctest::Approx(bce));
  CHECK(total.value().item() == doctest::Approx(bce + 0.5 * mse));
  total.backward();
  CHECK(g.parameters()[0].grad().defined());
}

}  // namespace
}  // namespace strand::train
