// LearningRateScheduler and ReduceLROnPlateau driven by hand-made logs.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "layers/sequential.h"
#include "optim/sgd.h"
#include "train/lr_callbacks.h"

namespace strand::train {

TEST_CASE("ReduceLROnPlateau cuts the rate after patience epochs without improvement") {
  Sequential model;
  Var p(Tensor::zeros({1}, DType::kFloat64), true);
  SGD optimizer({p}, {.learning_rate = 0.1});
  FitContext context{model, optimizer};
  ReduceLROnPlateau callback({.factor = 0.5, .patience = 2, .min_learning_rate = 0.03});
  const std::vector<double> val_losses = {1.0, 0.9, 0.95, 0.96, 0.97, 0.98, 0.99, 1.0};
  std::vector<double> rates;
  for (size_t epoch = 0; epoch < val_losses.size(); ++epoch) {
    EpochLogs logs;
    logs.epoch = static_cast<int64_t>(epoch);
    logs.values["val_loss"] = val_losses[epoch];
    callback.on_epoch_end(context, logs);
    rates.push_back(optimizer.learning_rate());
  }
  // Improvements at epochs 0 and 1; two bad epochs (2, 3) halve it; two more (4, 5) halve it
  // again but no lower than min_learning_rate; then it stays.
  const std::vector<double> expected = {0.1, 0.1, 0.1, 0.05, 0.05, 0.03, 0.03, 0.03};
  for (size_t i = 0; i < rates.size(); ++i) CHECK(rates[i] == doctest::Approx(expected[i]));
  EpochLogs missing;
  CHECK_THROWS_WITH_AS(callback.on_epoch_end(context, missing),
                       doctest::Contains("'val_loss' is not logged"), Error);
}

TEST_CASE("LearningRateScheduler follows the schedule from the optimizer's step count") {
  Sequential model;
  Var p(Tensor::zeros({1}, DType::kFloat64), true);
  SGD optimizer({p}, {.learning_rate = 1.0});
  FitContext context{model, optimizer};
  LearningRateScheduler scheduler(std::make_shared<StepDecay>(0.2, 2, 0.1));
  scheduler.on_train_begin(context);
  CHECK(optimizer.learning_rate() == doctest::Approx(0.2));
  BatchLogs logs;
  logs.global_step = 2;  // two steps done: the next one is in the second period
  scheduler.on_batch_end(context, logs);
  CHECK(optimizer.learning_rate() == doctest::Approx(0.02));
  // Before a step (what a GPU step needs, whose on_batch_end comes a step late): the rate of
  // the steps taken so far.
  scheduler.on_batch_begin(context, BatchStart{0, 0, 4});
  CHECK(optimizer.learning_rate() == doctest::Approx(0.002));
  scheduler.on_batch_begin(context, BatchStart{0, 1, 1});
  CHECK(optimizer.learning_rate() == doctest::Approx(0.2));
}

}  // namespace strand::train
