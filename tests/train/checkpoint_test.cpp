// Checkpoint loading refuses files that are not what they claim: tensors stored with another
// dtype (named with both dtypes), NaN or infinite values, damaged optimizer state and
// early-stopping metadata that is not a whole number. Saving removes the orphaned temporary
// files of earlier, interrupted saves (their rule: tests/io/atomic_file_test.cpp).
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "io/safetensors.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/sequential.h"
#include "optim/adam.h"
#include "test_helpers.h"
#include "train/callbacks.h"
#include "train/checkpoint.h"

namespace strand::train {
using namespace strand::io;  // the atomic writer and safetensors under test
namespace {

Sequential make_model(uint64_t seed) {
  Generator generator(seed);
  Sequential model;
  model.add(Conv1D(4, 4, 5, {}, generator));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(4, 1, true, generator));
  model.add(Sigmoid());
  return model;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("strand_checkpoint_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

SafetensorsEntry& entry(SafetensorsFile& file, const std::string& name) {
  for (SafetensorsEntry& e : file.entries) {
    if (e.name == name) return e;
  }
  FAIL("no tensor " << name);
  throw std::logic_error("unreachable");
}

// The first parameter values of `model`, to check a refused load changed nothing.
std::vector<float> first_weights(const Sequential& model) {
  return model.parameters()[0].value().to_vector<float>();
}

TEST_CASE("checkpoint: a tensor stored with another dtype is refused naming it and both dtypes") {
  const auto dir = fresh_dir("dtype");
  Sequential model = make_model(1);
  Adam optimizer(model.trainable_parameters());
  save_checkpoint(dir / "a.safetensors", model, &optimizer, {});
  const SafetensorsFile good = read_safetensors(dir / "a.safetensors");

  // I32 where the model's F32 weight belongs: the same bytes, silently converted before.
  SafetensorsFile as_int = good;
  entry(as_int, "0.weight").dtype = "I32";
  write_safetensors(dir / "int.safetensors", as_int.entries, as_int.metadata);
  Sequential target = make_model(2);
  const std::vector<float> before = first_weights(target);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "int.safetensors", target),
                       doctest::Contains("tensor '0.weight' is stored as I32 but the model's "
                                         "parameter '0.weight' is F32"),
                       Error);
  CHECK(first_weights(target) == before);

  // The optimizer's step count must be I64, its buffers the parameter's dtype.
  SafetensorsFile step_f64 = good;
  SafetensorsEntry& step = entry(step_f64, "optimizer.step");
  const double one = 1.0;
  step.dtype = "F64";
  std::memcpy(step.data.data(), &one, sizeof(one));
  write_safetensors(dir / "step.safetensors", step_f64.entries, step_f64.metadata);
  Adam target_optimizer(target.trainable_parameters());
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "step.safetensors", target, &target_optimizer),
                       doctest::Contains("tensor 'optimizer.step' is stored as F64 but the "
                                         "optimizer's step count is I64"),
                       Error);
  SafetensorsFile buffer_f64 = good;
  const std::vector<double> zeros(4 * 4 * 5, 0.0);
  buffer_f64.entries.push_back(make_safetensors_entry<double>("optimizer.0.exp_avg", {4, 4, 5},
                                                              std::span<const double>(zeros)));
  write_safetensors(dir / "buffer.safetensors", buffer_f64.entries, buffer_f64.metadata);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "buffer.safetensors", target, &target_optimizer),
                       doctest::Contains("tensor 'optimizer.0.exp_avg' is stored as F64 but Adam "
                                         "state of its parameter is F32"),
                       Error);
  CHECK(first_weights(target) == before);
  std::filesystem::remove_all(dir);
}

TEST_CASE("checkpoint: optimizer state names and step counts are read strictly") {
  const auto dir = fresh_dir("state");
  Sequential model = make_model(1);
  Adam optimizer(model.trainable_parameters());
  save_checkpoint(dir / "a.safetensors", model, &optimizer, {});
  const SafetensorsFile good = read_safetensors(dir / "a.safetensors");
  const std::vector<float> zeros(4 * 4 * 5, 0.0F);
  // "1x.exp_avg" used to be taken as parameter 1's buffer (std::stoul reads the 1).
  SafetensorsFile bad_name = good;
  bad_name.entries.push_back(make_safetensors_entry<float>("optimizer.1x.exp_avg", {4, 4, 5},
                                                           std::span<const float>(zeros)));
  write_safetensors(dir / "name.safetensors", bad_name.entries, bad_name.metadata);
  Sequential target = make_model(2);
  Adam target_optimizer(target.trainable_parameters());
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "name.safetensors", target, &target_optimizer),
                       doctest::Contains("unexpected entry '1x.exp_avg'"), Error);
  SafetensorsFile negative = good;
  const int64_t minus_five = -5;
  std::memcpy(entry(negative, "optimizer.step").data.data(), &minus_five, sizeof(minus_five));
  write_safetensors(dir / "negative.safetensors", negative.entries, negative.metadata);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "negative.safetensors", target, &target_optimizer),
                       doctest::Contains("'step' is -5"), Error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("checkpoint: NaN or infinity in weights or optimizer state is refused naming it") {
  const auto dir = fresh_dir("finite");
  Sequential model = make_model(1);
  Adam optimizer(model.trainable_parameters());
  save_checkpoint(dir / "a.safetensors", model, &optimizer, {});
  SafetensorsFile file = read_safetensors(dir / "a.safetensors");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(entry(file, "3.weight").data.data() + 2 * sizeof(float), &nan, sizeof(nan));
  write_safetensors(dir / "nan.safetensors", file.entries, file.metadata);
  Sequential target = make_model(2);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "nan.safetensors", target),
                       doctest::Contains("tensor '3.weight' holds nan at element 2 of 4"), Error);
  SafetensorsFile state = read_safetensors(dir / "a.safetensors");
  std::vector<float> values(4, 0.0F);
  values[1] = std::numeric_limits<float>::infinity();
  state.entries.push_back(
      make_safetensors_entry<float>("optimizer.1.exp_avg_sq", {4}, std::span<const float>(values)));
  write_safetensors(dir / "inf.safetensors", state.entries, state.metadata);
  Adam target_optimizer(target.trainable_parameters());
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "inf.safetensors", target, &target_optimizer),
                       doctest::Contains("tensor 'optimizer.1.exp_avg_sq' holds inf at element 1"),
                       Error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("early stopping state: partial or negative numbers in the metadata are refused") {
  EarlyStopping stopper;
  const CheckpointMetadata good = {{"early_stopping.best", "0.25"},
                                   {"early_stopping.best_epoch", "2"},
                                   {"early_stopping.wait", "1"}};
  stopper.restore(good, {});
  CHECK(stopper.best_epoch() == 2);
  CHECK(stopper.best_value() == 0.25);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"early_stopping.wait", "1x"},        {"early_stopping.wait", "-1"},
      {"early_stopping.wait", " 1"},        {"early_stopping.best_epoch", "-2"},
      {"early_stopping.best_epoch", "2.5"}, {"early_stopping.best", "0.25x"},
      {"early_stopping.best", "nan"},       {"early_stopping.best", ""}};
  for (const auto& [key, value] : bad) {
    CheckpointMetadata damaged = good;
    damaged[key] = value;
    EarlyStopping other;
    const std::string expected = "'" + key + "' is '" + value + "'";
    CHECK_THROWS_WITH_AS(other.restore(damaged, {}), doctest::Contains(expected.c_str()), Error);
    CHECK(other.best_epoch() == -1);  // nothing restored
  }
  // Before any improvement the best is infinite, and that round-trips.
  EarlyStopping fresh;
  EarlyStopping restored;
  restored.restore(fresh.state(), {});
  CHECK(restored.best_value() == std::numeric_limits<double>::infinity());
}

TEST_CASE("save_checkpoint removes orphaned temporary files of the checkpoint it writes") {
  const auto dir = fresh_dir("orphans");
  std::ofstream(dir / "last.safetensors.tmp.Q1w2E3") << "partial";
  std::ofstream(dir / "last.safetensors.tmp.zzzzzz") << "partial";
  Generator generator(1);
  Sequential model;
  model.add(Dense(3, 1, true, generator));
  save_checkpoint(dir / "last.safetensors", model, nullptr, {});
  int64_t temporary_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    temporary_files += entry.path().filename().string().starts_with("last.safetensors.tmp.");
  }
  CHECK(temporary_files == 0);
  CHECK(std::filesystem::exists(dir / "last.safetensors"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace strand::train
