// The fit loop end to end on a small simulated motif task: learning, early stopping with
// restored weights, checkpoints, and bit-exact resume.
#include <doctest/doctest.h>

#include <cmath>

#include <filesystem>

#include "data/simulation/motif_library.h"
#include "data/simulation/motif_simulation.h"
#include "data/sources/array_source.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/sequential.h"
#include "optim/adam.h"
#include "test_helpers.h"
#include "train/callbacks.h"
#include "train/fit.h"
#include "train/lr_callbacks.h"

namespace strand::train {
namespace {

struct SmallTask {
  data::SimulatedDataset dataset;
};

const data::SimulatedDataset& small_dataset() {
  static const data::SimulatedDataset dataset = [] {
    const data::MotifLibrary& library = data::MotifLibrary::builtin();
    data::MotifSimulationConfig config;
    config.seq_length = 100;
    config.num_pos = 400;
    config.num_neg = 400;
    config.test_size = 100;
    config.validation_size = 100;
    config.seed = 5;
    return data::simulate_single_motif_detection(library.get("TAL1_known4"), config);
  }();
  return dataset;
}

std::unique_ptr<data::DataLoader> loader_for(const data::SimulatedSplit& split, bool shuffle,
                                             uint64_t seed) {
  auto source = std::make_shared<data::ArraySource>(
      split.codes, static_cast<int64_t>(split.seq_length), split.labels, 1);
  data::LoaderOptions options;
  options.sampler.batch_size = 32;
  options.sampler.shuffle = shuffle;
  options.sampler.seed = seed;
  options.loader_threads = 2;
  return std::make_unique<data::DataLoader>(source, options);
}

Sequential make_model(uint64_t seed) {
  Generator generator(seed);
  Sequential model;
  model.add(Conv1D(4, 8, 10, {}, generator));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(8, 1, true, generator));
  model.add(Sigmoid());
  return model;
}

struct StepRecorder : Callback {
  std::vector<double> losses;
  int64_t stop_after_epochs = -1;
  void on_batch_end(FitContext&, const BatchLogs& logs) override { losses.push_back(logs.loss); }
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override {
    if (stop_after_epochs > 0 && logs.epoch + 1 == stop_after_epochs) context.stop_training = true;
  }
};

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("strand_fit_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("fit learns the simulated motif task and evaluate reports the metrics") {
  const auto& dataset = small_dataset();
  auto train_loader = loader_for(dataset.train, true, 1);
  auto valid_loader = loader_for(dataset.validation, false, 0);
  auto test_loader = loader_for(dataset.test, false, 0);
  Sequential model = make_model(3);
  AdamOptions adam_options;
  adam_options.learning_rate = 1e-2;
  Adam optimizer(model.trainable_parameters(), adam_options);
  BinaryCrossEntropy loss;
  FitOptions options;
  options.epochs = 12;
  const History history = fit(model, loss, optimizer, *train_loader, valid_loader.get(), options);
  REQUIRE(history.epochs.size() == 12);
  CHECK(history.epochs.back().get("loss") < history.epochs.front().get("loss"));
  CHECK(history.epochs.back().get("val_auroc") > 0.9);
  const Evaluation test = evaluate(model, loss, *test_loader);
  CHECK(test.count == 100);
  CHECK(test.auroc > 0.85);
  const Predictions predictions = predict(model, *test_loader);
  CHECK(predictions.scores.size() == 100);
  for (float s : predictions.scores) CHECK((s >= 0.0f && s <= 1.0f));
}

TEST_CASE("fit clips gradients and caps weight norms when asked, with a learning-rate schedule") {
  const auto& dataset = small_dataset();
  auto train_loader = loader_for(dataset.train, true, 1);
  Sequential model = make_model(5);
  AdamOptions adam_options;
  adam_options.learning_rate = 0.5;  // large steps: the constraint has to act
  Adam optimizer(model.trainable_parameters(), adam_options);
  BinaryCrossEntropy loss;
  FitOptions options;
  options.epochs = 2;
  options.clip_grad_norm = 1.0;
  options.max_weight_norm = 0.5;
  auto schedule = std::make_shared<LearningRateScheduler>(std::make_shared<StepDecay>(0.5, 4, 0.5));
  const History history = fit(model, loss, optimizer, *train_loader, nullptr, options, {schedule});
  REQUIRE(history.epochs.size() == 2);
  for (const Var& parameter : model.parameters()) {
    if (parameter.dim() < 2) continue;
    const Tensor w = parameter.value().to(DType::kFloat64).contiguous();
    const int64_t units = w.size(0), per_unit = w.numel() / units;
    const double* data = w.data<double>();
    for (int64_t o = 0; o < units; ++o) {
      double squares = 0.0;
      for (int64_t i = 0; i < per_unit; ++i)
        squares += data[o * per_unit + i] * data[o * per_unit + i];
      CHECK(std::sqrt(squares) <= 0.5 + 1e-5);
    }
  }
  // The schedule set the rate of the step after the last one.
  CHECK(optimizer.learning_rate() ==
        doctest::Approx(StepDecay(0.5, 4, 0.5).rate(optimizer.step_count())));
}

// Records, before each step, what the step will run with, and after it, what it logged.
struct StepOrderRecorder : Callback {
  std::vector<int64_t> started;       // BatchStart::global_step of every step
  std::vector<double> rate_at_start;  // the optimizer's rate when the step starts
  std::vector<int64_t> ended;         // BatchLogs::global_step of every step
  void on_batch_begin(FitContext& context, const BatchStart& start) override {
    started.push_back(start.global_step);
    rate_at_start.push_back(context.optimizer.learning_rate());
  }
  void on_batch_end(FitContext&, const BatchLogs& logs) override {
    ended.push_back(logs.global_step);
  }
};

TEST_CASE("fit sets a step's learning rate before the step starts, and logs it after") {
  const auto& dataset = small_dataset();
  auto train_loader = loader_for(dataset.train, true, 1);
  Sequential model = make_model(6);
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-2});
  BinaryCrossEntropy loss;
  FitOptions options;
  options.epochs = 2;
  const auto decay = std::make_shared<StepDecay>(1e-2, 7, 0.5);
  auto scheduler = std::make_shared<LearningRateScheduler>(decay);
  auto recorder = std::make_shared<StepOrderRecorder>();
  fit(model, loss, optimizer, *train_loader, nullptr, options, {scheduler, recorder});
  const int64_t steps = 2 * train_loader->steps_per_epoch();
  REQUIRE(static_cast<int64_t>(recorder->started.size()) == steps);
  REQUIRE(static_cast<int64_t>(recorder->ended.size()) == steps);
  for (int64_t k = 0; k < steps; ++k) {
    INFO("step " << k);
    CHECK(recorder->started[k] == k);  // steps taken before it
    CHECK(recorder->ended[k] == k + 1);
    // The scheduler ran first: the rate of step k is in place before it is queued (on a GPU,
    // on_batch_end comes a step late; this is what keeps the schedule on time there).
    CHECK(recorder->rate_at_start[k] == decay->rate(k));
  }
}

TEST_CASE("fit on the CPU ignores the CUDA graph switch") {
  const auto& dataset = small_dataset();
  std::vector<std::vector<double>> losses;
  for (bool graph : {true, false}) {
    auto train_loader = loader_for(dataset.train, true, 1);
    Sequential model = make_model(8);
    Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-2});
    BinaryCrossEntropy loss;
    FitOptions options;
    options.epochs = 1;
    options.cuda_graph = graph;
    auto recorder = std::make_shared<StepRecorder>();
    const History history =
        fit(model, loss, optimizer, *train_loader, nullptr, options, {recorder});
    CHECK(history.replayed_steps == 0);
    losses.push_back(recorder->losses);
  }
  CHECK(losses[0] == losses[1]);
}

TEST_CASE("early stopping stops after patience epochs without improvement and restores the best") {
  const auto& dataset = small_dataset();
  auto train_loader = loader_for(dataset.train, true, 1);
  auto valid_loader = loader_for(dataset.validation, false, 0);
  Sequential model = make_model(4);
  AdamOptions adam_options;
  adam_options.learning_rate = 0.2;  // large enough to overshoot, so validation loss wobbles
  Adam optimizer(model.trainable_parameters(), adam_options);
  BinaryCrossEntropy loss;
  EarlyStoppingOptions stop_options;
  stop_options.patience = 2;
  auto stopper = std::make_shared<EarlyStopping>(stop_options);
  FitOptions options;
  options.epochs = 40;
  const History history =
      fit(model, loss, optimizer, *train_loader, valid_loader.get(), options, {stopper});
  REQUIRE(history.stopped_early);
  const int64_t last = history.epochs.back().epoch;
  CHECK(last - stopper->best_epoch() == 2);
  // The restored weights give the best epoch's validation loss again.
  const Evaluation again = evaluate(model, loss, *valid_loader);
  CHECK(again.loss == doctest::Approx(stopper->best_value()).epsilon(1e-6));
}

TEST_CASE("checkpoints round-trip and reject a mismatched model naming the tensor") {
  const auto dir = fresh_dir("checkpoint");
  Sequential model = make_model(5);
  Adam optimizer(model.trainable_parameters());
  save_checkpoint(dir / "a.safetensors", model, &optimizer, {{"epoch", "3"}});
  Sequential other = make_model(6);
  Adam other_optimizer(other.trainable_parameters());
  const auto metadata = load_checkpoint(dir / "a.safetensors", other, &other_optimizer);
  CHECK(metadata.at("epoch") == "3");
  CHECK(metadata.at("optimizer") == "Adam");
  for (size_t i = 0; i < model.parameters().size(); ++i) {
    CHECK(model.parameters()[i].value().to_vector<float>() ==
          other.parameters()[i].value().to_vector<float>());
  }
  Generator generator(1);
  Sequential wider;
  wider.add(Conv1D(4, 9, 10, {}, generator));
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "a.safetensors", wider),
                       doctest::Contains("tensor '0.weight' has shape (8, 4, 10)"), Error);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "missing.safetensors", wider),
                       doctest::Contains("missing.safetensors"), std::exception);
  std::filesystem::remove_all(dir);
}

TEST_CASE("an interrupted and resumed run repeats the uninterrupted per-step losses bit for bit") {
  const auto& dataset = small_dataset();
  const auto dir = fresh_dir("resume");
  BinaryCrossEntropy loss;
  FitOptions options;
  options.epochs = 5;

  // Uninterrupted.
  std::vector<double> full;
  {
    auto train_loader = loader_for(dataset.train, true, 9);
    Sequential model = make_model(7);
    Adam optimizer(model.trainable_parameters());
    auto recorder = std::make_shared<StepRecorder>();
    fit(model, loss, optimizer, *train_loader, nullptr, options, {recorder});
    full = recorder->losses;
  }
  // Interrupted after 2 epochs (checkpoint written), then resumed in fresh objects.
  std::vector<double> resumed;
  {
    auto train_loader = loader_for(dataset.train, true, 9);
    Sequential model = make_model(7);
    Adam optimizer(model.trainable_parameters());
    auto recorder = std::make_shared<StepRecorder>();
    recorder->stop_after_epochs = 2;
    auto checkpoint = std::make_shared<ModelCheckpoint>(dir, "loss", false, true);
    fit(model, loss, optimizer, *train_loader, nullptr, options, {checkpoint, recorder});
    resumed = recorder->losses;
  }
  {
    auto train_loader = loader_for(dataset.train, true, 9);
    Sequential model = make_model(123);  // different init: everything must come from the file
    Adam optimizer(model.trainable_parameters());
    const auto metadata = load_checkpoint(dir / "last.safetensors", model, &optimizer);
    FitOptions resume = options;
    resume.initial_epoch = std::stoll(metadata.at("epochs_completed"));
    resume.initial_global_step = std::stoll(metadata.at("global_step"));
    auto recorder = std::make_shared<StepRecorder>();
    fit(model, loss, optimizer, *train_loader, nullptr, resume, {recorder});
    resumed.insert(resumed.end(), recorder->losses.begin(), recorder->losses.end());
  }
  REQUIRE(resumed.size() == full.size());
  for (size_t i = 0; i < full.size(); ++i) CHECK(resumed[i] == full[i]);
  std::filesystem::remove_all(dir);
}

}  // namespace strand::train
