// fit(), evaluate() and predict() on models that are not a plain Sequential: a Graph with a
// residual block and two heads trained on one objective, its per-output figures, and
// checkpoints of the trained graph.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "data/simulation/motif_library.h"
#include "data/simulation/motif_simulation.h"
#include "data/sources/array_source.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/graph.h"
#include "layers/merge.h"
#include "optim/adam.h"
#include "test_helpers.h"
#include "train/checkpoint.h"
#include "train/fit.h"

namespace strand::train {
namespace {

// The TAL1 task with a second label column (the first one's complement) so that two heads have
// something to learn: a binary head on both columns and a regression head on the first.
struct TwoColumnData {
  std::shared_ptr<data::ArraySource> train, validation;
};

TwoColumnData two_column_data() {
  const data::MotifLibrary& library = data::MotifLibrary::builtin();
  data::MotifSimulationConfig config;
  config.seq_length = 100;
  config.num_pos = 300;
  config.num_neg = 300;
  config.test_size = 50;
  config.validation_size = 100;
  config.seed = 7;
  const data::SimulatedDataset dataset =
      data::simulate_single_motif_detection(library.get("TAL1_known4"), config);
  auto source = [](const data::SimulatedSplit& split) {
    std::vector<float> labels;
    for (const float label : split.labels) labels.insert(labels.end(), {label, 1.0f - label});
    return std::make_shared<data::ArraySource>(split.codes, static_cast<int64_t>(split.seq_length),
                                               labels, 2);
  };
  return {source(dataset.train), source(dataset.validation)};
}

std::unique_ptr<data::DataLoader> loader_of(std::shared_ptr<data::ArraySource> source,
                                            bool shuffle) {
  data::LoaderOptions options;
  options.sampler.batch_size = 32;
  options.sampler.shuffle = shuffle;
  options.sampler.seed = 3;
  return std::make_unique<data::DataLoader>(source, options);
}

Graph residual_two_heads() {
  manual_seed(11);
  Graph g;
  g.add("conv", Conv1D(4, 8, 10, {.padding = Padding::kSame}), {"sequence"});
  g.add("relu", ReLU(), {"conv"});
  g.add("body", Conv1D(8, 8, 3, {.padding = Padding::kSame}), {"relu"});
  g.add("body_relu", ReLU(), {"body"});
  g.add("residual", Add(), {"relu", "body_relu"});
  g.add("pool", GlobalMaxPool1D(), {"residual"});
  g.add("logits", Dense(8, 2), {"pool"});
  g.add("bound", Sigmoid(), {"logits"});
  g.add("level", Dense(8, 2), {"pool"});
  g.add_output("bound", "bound");
  g.add_output("level", "level");
  return g;
}

TEST_CASE("fit trains a two-head residual graph on one objective, evaluate reports each head") {
  const TwoColumnData data = two_column_data();
  auto train_loader = loader_of(data.train, true);
  auto valid_loader = loader_of(data.validation, false);
  Graph model = residual_two_heads();
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-2});
  const Objective objective(
      {{.output = "bound", .loss = std::make_shared<BinaryCrossEntropy>()},
       {.output = "level", .loss = std::make_shared<MeanSquaredError>(), .weight = 0.5}});
  FitOptions options;
  options.epochs = 8;
  const History history =
      fit(model, objective, optimizer, *train_loader, valid_loader.get(), options);
  REQUIRE(history.epochs.size() == 8);
  const EpochLogs& first = history.epochs.front();
  const EpochLogs& last = history.epochs.back();
  CHECK(last.get("loss") < first.get("loss"));
  // The first term is binary: training accuracy is logged; validation has both heads' figures.
  CHECK(last.get("accuracy") > 0.7);
  CHECK(last.get("val_bound_auroc") > 0.85);
  CHECK(std::isfinite(last.get("val_bound_auroc/task_0")));
  CHECK(last.get("val_level_pearson") > 0.5);
  CHECK(last.get("val_loss") ==
        doctest::Approx(last.get("val_bound_loss") + 0.5 * last.get("val_level_loss")));

  const Evaluation evaluation = evaluate(model, objective, *valid_loader);
  CHECK(evaluation.get("bound_mean_auroc") > 0.85);
  CHECK(evaluation.auroc == evaluation.get("bound_auroc"));
  CHECK(evaluation.count == 2 * data.validation->size());
  CHECK_THROWS_WITH_AS(evaluation.get("auroc"), doctest::Contains("has no 'auroc'; it has"), Error);

  // Predictions of each head, through its final activation.
  const Predictions bound = predict(model, *valid_loader, 0);
  const Predictions level = predict(model, *valid_loader, 1);
  CHECK(bound.num_targets == 2);
  CHECK(static_cast<int64_t>(bound.scores.size()) == 2 * data.validation->size());
  for (const float score : bound.scores) CHECK((score > 0.0f && score < 1.0f));
  CHECK(level.scores.size() == bound.scores.size());
  CHECK_THROWS_WITH_AS(predict(model, *valid_loader, 2),
                       doctest::Contains("the model has 2 output(s), not 3"), Error);

  // A checkpoint of the trained graph gives the same predictions in a fresh graph.
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "strand_fit_models.safetensors";
  save_checkpoint(path, model, &optimizer, {});
  Graph restored = residual_two_heads();
  load_checkpoint(path, restored);
  CHECK(predict(restored, *valid_loader, 1).scores == level.scores);
  std::filesystem::remove(path);
}

TEST_CASE("fit refuses an objective whose loss does not suit the output's activation") {
  const TwoColumnData data = two_column_data();
  auto train_loader = loader_of(data.train, true);
  Graph model = residual_two_heads();
  Adam optimizer(model.trainable_parameters());
  const Objective objective({{.output = "level", .loss = std::make_shared<BinaryCrossEntropy>()}});
  FitOptions options;
  options.epochs = 1;
  CHECK_THROWS_WITH_AS(fit(model, objective, optimizer, *train_loader, nullptr, options),
                       doctest::Contains("output 'level': loss 'binary_crossentropy' applies a "
                                         "sigmoid itself, so the output must end in Sigmoid"),
                       Error);
}

}  // namespace
}  // namespace strand::train
