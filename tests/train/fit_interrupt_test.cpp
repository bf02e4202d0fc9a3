// fit() stopped by FitOptions::should_stop part-way through an epoch: it stops before the next
// step, the callbacks get on_train_interrupted (not on_train_end), ModelCheckpoint writes last
// with the PartialEpoch, and a resume from it repeats the uninterrupted steps and epoch logs
// bit for bit, wherever in the epoch the stop fell.
#include <doctest/doctest.h>

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
#include "train/partial_epoch.h"

namespace strand::train {
namespace {

const data::SimulatedSplit& train_split() {
  static const data::SimulatedDataset dataset = [] {
    const data::MotifLibrary& library = data::MotifLibrary::builtin();
    data::MotifSimulationConfig config;
    config.seq_length = 60;
    config.num_pos = 150;
    config.num_neg = 150;
    config.test_size = 20;
    config.validation_size = 20;
    config.seed = 3;
    return data::simulate_single_motif_detection(library.get("TAL1_known4"), config);
  }();
  return dataset.train;
}

// 260 training samples in batches of 32: 9 steps per epoch, the last one short.
std::unique_ptr<data::DataLoader> make_loader() {
  const data::SimulatedSplit& split = train_split();
  auto source = std::make_shared<data::ArraySource>(
      split.codes, static_cast<int64_t>(split.seq_length), split.labels, 1);
  data::LoaderOptions options;
  options.sampler.batch_size = 32;
  options.sampler.shuffle = true;
  options.sampler.seed = 4;
  options.loader_threads = 2;
  return std::make_unique<data::DataLoader>(source, options);
}

Sequential make_model(uint64_t seed) {
  Generator generator(seed);
  Sequential model;
  model.add(Conv1D(4, 6, 8, {}, generator));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(6, 1, true, generator));
  model.add(Sigmoid());
  return model;
}

// Every step's loss and every epoch's logged training loss and accuracy; whether the loop
// ended normally or was interrupted.
struct Recorder : Callback {
  std::vector<double> step_losses;
  std::vector<std::pair<double, double>> epochs;  // (loss, accuracy)
  int64_t steps_seen = 0;
  bool ended = false;
  std::optional<PartialEpoch> interrupted;
  void on_batch_end(FitContext&, const BatchLogs& logs) override {
    step_losses.push_back(logs.loss);
    ++steps_seen;
  }
  void on_epoch_end(FitContext&, const EpochLogs& logs) override {
    epochs.emplace_back(logs.get("loss"), logs.get("accuracy"));
  }
  void on_train_end(FitContext&) override { ended = true; }
  void on_train_interrupted(FitContext&, const PartialEpoch& partial) override {
    interrupted = partial;
  }
};

constexpr int64_t kEpochs = 3;

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("strand_fit_interrupt_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Stops before global step `stop_at` + 1 (after `stop_at` steps), then resumes from the last
// checkpoint in fresh objects; compares with the uninterrupted run.
void check_interrupt_at(int64_t stop_at, const Recorder& full) {
  CAPTURE(stop_at);
  const auto dir = fresh_dir(std::to_string(stop_at));
  BinaryCrossEntropy loss;
  Recorder first;
  {
    auto loader = make_loader();
    Sequential model = make_model(7);
    Adam optimizer(model.trainable_parameters());
    auto recorder = std::make_shared<Recorder>();
    auto checkpoint = std::make_shared<ModelCheckpoint>(dir, "loss", false, true);
    FitOptions options;
    options.epochs = kEpochs;
    options.should_stop = [&recorder, stop_at] { return recorder->steps_seen >= stop_at; };
    const History history =
        fit(model, loss, optimizer, *loader, nullptr, options, {recorder, checkpoint});
    REQUIRE(history.interrupted.has_value());
    CHECK(recorder->interrupted.has_value());
    CHECK_FALSE(recorder->ended);
    CHECK(history.interrupted->global_step == stop_at);
    CHECK(history.interrupted->epoch == stop_at / 9 - (stop_at % 9 == 0 && stop_at > 0 ? 1 : 0));
    CHECK(recorder->step_losses.size() == static_cast<size_t>(stop_at));
    first = *recorder;
  }
  const CheckpointMetadata metadata = read_checkpoint_metadata(dir / "last.safetensors");
  const std::optional<PartialEpoch> partial = read_partial_epoch(metadata);
  REQUIRE(partial.has_value());
  CHECK(partial->global_step == stop_at);
  {
    auto loader = make_loader();
    Sequential model = make_model(123);  // everything must come from the file
    Adam optimizer(model.trainable_parameters());
    load_checkpoint(dir / "last.safetensors", model, &optimizer);
    auto recorder = std::make_shared<Recorder>();
    FitOptions options;
    options.epochs = kEpochs;
    options.initial_epoch = partial->epoch;
    options.initial_global_step = partial->global_step;
    options.partial_epoch = partial;
    const History history = fit(model, loss, optimizer, *loader, nullptr, options, {recorder});
    CHECK_FALSE(history.interrupted.has_value());
    CHECK(recorder->ended);
    std::vector<double> steps = first.step_losses;
    steps.insert(steps.end(), recorder->step_losses.begin(), recorder->step_losses.end());
    std::vector<std::pair<double, double>> epochs = first.epochs;
    epochs.insert(epochs.end(), recorder->epochs.begin(), recorder->epochs.end());
    CHECK(steps == full.step_losses);  // exact, not approximate
    CHECK(epochs == full.epochs);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("fit: stopped mid-epoch, at an epoch's end or before any step, resumes bit for bit") {
  Recorder full;
  {
    auto loader = make_loader();
    REQUIRE(loader->steps_per_epoch() == 9);
    Sequential model = make_model(7);
    Adam optimizer(model.trainable_parameters());
    auto recorder = std::make_shared<Recorder>();
    FitOptions options;
    options.epochs = kEpochs;
    options.should_stop = [] { return false; };
    BinaryCrossEntropy loss;
    const History history = fit(model, loss, optimizer, *loader, nullptr, options, {recorder});
    CHECK_FALSE(history.interrupted.has_value());
    full = *recorder;
  }
  REQUIRE(full.step_losses.size() == 27);
  for (const int64_t stop_at : {13, 1, 9, 18, 0}) check_interrupt_at(stop_at, full);
}

TEST_CASE("fit: a partial epoch that does not continue the initial epoch is refused") {
  auto loader = make_loader();
  Sequential model = make_model(7);
  Adam optimizer(model.trainable_parameters());
  BinaryCrossEntropy loss;
  FitOptions options;
  options.epochs = 2;
  options.initial_epoch = 1;
  options.initial_global_step = 12;
  PartialEpoch partial;
  partial.epoch = 1;
  partial.global_step = 12;
  partial.steps = 10;  // more than an epoch's 9 steps
  options.partial_epoch = partial;
  CHECK_THROWS_WITH_AS(fit(model, loss, optimizer, *loader, nullptr, options),
                       doctest::Contains("does not continue initial_epoch 1"), Error);
}

TEST_CASE("partial epoch metadata round-trips exactly and is read strictly") {
  PartialEpoch partial;
  partial.epoch = 2;
  partial.steps = 5;
  partial.global_step = 23;
  partial.loss_sum = 0.1 + 0.2;  // not a short decimal: must come back bit for bit
  partial.samples = 160;
  partial.correct = 101;
  partial.labelled = 150;
  partial.seconds = 1.0 / 3.0;
  std::map<std::string, std::string> metadata = partial_epoch_metadata(partial);
  const std::optional<PartialEpoch> back = read_partial_epoch(metadata);
  REQUIRE(back.has_value());
  CHECK(back->epoch == 2);
  CHECK(back->steps == 5);
  CHECK(back->global_step == 23);
  CHECK(back->loss_sum == partial.loss_sum);
  CHECK(back->samples == 160);
  CHECK(back->correct == 101);
  CHECK(back->labelled == 150);
  CHECK(back->seconds == partial.seconds);
  // A checkpoint written at an epoch's end has no partial epoch.
  CHECK_FALSE(read_partial_epoch({{"epochs_completed", "3"}, {"global_step", "27"}}));
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"steps_in_epoch", "5x"},
                                                        {"steps_in_epoch", "-1"},
                                                        {"partial_epoch.samples", "1e3"},
                                                        {"partial_epoch.loss_sum", "nan"},
                                                        {"partial_epoch.loss_sum", "0.3 "}}) {
    std::map<std::string, std::string> damaged = metadata;
    damaged[key] = value;
    const std::string expected = "'" + key + "' is '" + value + "'";
    CHECK_THROWS_WITH_AS(read_partial_epoch(damaged), doctest::Contains(expected.c_str()), Error);
  }
  std::map<std::string, std::string> inconsistent = metadata;
  inconsistent["partial_epoch.correct"] = "151";
  CHECK_THROWS_WITH_AS(read_partial_epoch(inconsistent), doctest::Contains("disagrees"), Error);
  std::map<std::string, std::string> missing = metadata;
  missing.erase("partial_epoch.seconds");
  CHECK_THROWS_WITH_AS(read_partial_epoch(missing),
                       doctest::Contains("lacks 'partial_epoch.seconds'"), Error);
}

}  // namespace
}  // namespace strand::train
