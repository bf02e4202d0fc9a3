// What a run logs and where: the names of the logged figures (and fit() logging exactly those),
// metrics.csv's fixed columns with empty cells, TensorBoard's train/validation/test run
// directories sharing tags, the one-line epoch summary, and monitoring any figure.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "data/sources/array_source.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/graph.h"
#include "layers/sequential.h"
#include "optim/sgd.h"
#include "support/event_files.h"
#include "support/test_paths.h"
#include "test_helpers.h"
#include "train/callbacks.h"
#include "train/fit.h"
#include "train/metric_names.h"

namespace strand::train {
namespace {

using Keys = std::vector<std::string>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A model and optimizer for callbacks that only need a FitContext.
struct Context {
  Sequential model;
  SGD optimizer;
  FitContext fit;
  Context() : model(make_model()), optimizer(model.trainable_parameters()), fit{model, optimizer} {
    fit.epochs = 3;
  }
  static Sequential make_model() {
    Sequential m;
    m.add(Dense(2, 1));
    return m;
  }
};

EpochLogs logs_of(int64_t epoch, std::map<std::string, double> values) {
  EpochLogs logs;
  logs.epoch = epoch;
  logs.global_step = 4 * (epoch + 1);
  logs.values = std::move(values);
  return logs;
}

// 60 random 30-base sequences with three 0/1 label columns (the first a GC-rich motif call,
// so that something is learnt; the others random).
std::shared_ptr<data::ArraySource> three_task_source() {
  std::vector<uint8_t> codes;
  std::vector<float> labels;
  uint64_t state = 17;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int i = 0; i < 60; ++i) {
    int gc = 0;
    for (int b = 0; b < 30; ++b) {
      const auto code = static_cast<uint8_t>(next() % 4);
      gc += code == 1 || code == 2;
      codes.push_back(code);
    }
    labels.insert(labels.end(), {gc > 15 ? 1.0f : 0.0f, static_cast<float>(next() % 2),
                                 static_cast<float>(next() % 2)});
  }
  return std::make_shared<data::ArraySource>(codes, 30, labels, 3);
}

std::unique_ptr<data::DataLoader> loader_of(std::shared_ptr<data::ArraySource> source) {
  data::LoaderOptions options;
  options.sampler.batch_size = 16;
  options.sampler.shuffle = false;
  return std::make_unique<data::DataLoader>(source, options);
}

FitOptions one_epoch() {
  FitOptions options;
  options.epochs = 1;
  return options;
}

InputShapes sequences_of(int64_t length) {
  InputShapes shapes;
  shapes.sequence = {length};
  return shapes;
}

// The keys of one epoch's logs, sorted.
Keys logged_keys(const EpochLogs& logs) {
  Keys keys;
  for (const auto& [key, value] : logs.values) keys.push_back(key);
  return keys;
}

Keys sorted(Keys keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

TEST_CASE("metric names: training figures follow the first term, losses by name") {
  BinaryCrossEntropy bce;
  MeanSquaredError mse;
  CHECK(training_metric_names(Objective::of(bce)) ==
        Keys{"loss", "accuracy", "learning_rate", "samples_per_second", "epoch_seconds"});
  CHECK(training_metric_names(Objective::of(mse)) ==
        Keys{"loss", "learning_rate", "samples_per_second", "epoch_seconds"});
  CHECK(training_metric_names(Objective::of(mse, TargetKind::kBinary)).at(1) == "accuracy");
  CHECK(epoch_metric_names({"loss"}, {"loss", "auroc", "auroc/CTCF"}) ==
        Keys{"loss", "val_loss", "val_auroc", "val_auroc/CTCF"});
  CHECK(epoch_metric_names({"loss"}, {}) == Keys{"loss"});

  for (const char* loss : {"loss", "val_loss", "val_profile_loss", "counts_loss"}) {
    CHECK_MESSAGE(is_loss_name(loss), loss);
  }
  // A task's name never makes a figure a loss; an output's name alone neither.
  for (const char* other : {"val_auroc/gloss", "val_loss_head_pearson", "accuracy", "auprc"}) {
    CHECK_FALSE_MESSAGE(is_loss_name(other), other);
  }
  CHECK(monitor_maximizes("val_auroc/gloss", "auto", "test"));
  CHECK_FALSE(monitor_maximizes("val_counts_loss", "auto", "test"));

  const Keys outputs = {"profile", "profile_counts"};
  const MetricNameParts parts = split_metric_name("profile_counts_pearson/CTCF", outputs);
  CHECK(parts.output == "profile_counts");
  CHECK(parts.metric == "pearson");
  CHECK(parts.task == "CTCF");
  CHECK(split_metric_name("profile_loss", outputs).output == "profile");
  CHECK(split_metric_name("loss", outputs).output.empty());
  const MetricNameParts single = split_metric_name("mean_auroc", {});
  CHECK((single.output.empty() && single.metric == "mean_auroc" && single.task.empty()));
  // A task name may hold '/' and '_': only the first '/' ends the metric.
  CHECK(split_metric_name("auprc/H3K27ac/rep_1", {}).task == "H3K27ac/rep_1");
}

TEST_CASE("metric names: the main figures drop per-task ones and means that repeat the pooled") {
  // One task: the means equal the pooled figures and are left out.
  CHECK(main_metric_names({"val_loss", "val_accuracy", "val_auroc", "val_mean_auroc"}) ==
        Keys{"val_loss", "val_accuracy", "val_auroc"});
  // Several tasks: the means stay, the per-task figures go.
  CHECK(main_metric_names({"val_auroc", "val_mean_auroc", "val_auroc/a", "val_auroc/b"}) ==
        Keys{"val_auroc", "val_mean_auroc"});
  // Two terms, one of them on an output named "mean".
  CHECK(main_metric_names({"val_loss", "val_mean_pearson", "val_mean_mean_pearson",
                           "val_mean_pearson/0", "val_mean_pearson/1", "val_x_pearson",
                           "val_x_mean_pearson"}) ==
        Keys{"val_loss", "val_mean_pearson", "val_mean_mean_pearson", "val_x_pearson"});
}

TEST_CASE("fit logs exactly the training metric names and val_ plus the evaluation keys") {
  auto source = three_task_source();
  auto train_loader = loader_of(source);
  auto valid_loader = loader_of(source);
  SUBCASE("a two-head graph: binary labels and a regression head, three tasks") {
    manual_seed(5);
    Graph model;
    model.add("conv", Conv1D(4, 4, 5), {"sequence"});
    model.add("relu", ReLU(), {"conv"});
    model.add("pool", GlobalMaxPool1D(), {"relu"});
    model.add("logits", Dense(4, 3), {"pool"});
    model.add("bound", Sigmoid(), {"logits"});
    model.add("level", Dense(4, 3), {"pool"});
    model.add_output("bound", "bound");
    model.add_output("level", "level");
    const Objective objective({{.output = "bound", .loss = std::make_shared<BinaryCrossEntropy>()},
                               {.output = "level", .loss = std::make_shared<MeanSquaredError>()}});
    SGD optimizer(model.trainable_parameters());
    const History history =
        fit(model, objective, optimizer, *train_loader, valid_loader.get(), one_epoch());
    const Keys evaluation = evaluation_keys(model, objective, source->task_names(),
                                            model.output_shapes(sequences_of(30)));
    const Keys expected = epoch_metric_names(training_metric_names(objective), evaluation);
    CHECK(logged_keys(history.epochs.at(0)) == sorted(expected));
    CHECK(std::find(expected.begin(), expected.end(), "val_level_pearson/task_2") !=
          expected.end());
  }
  SUBCASE("one regression term: no training accuracy") {
    manual_seed(5);
    Sequential model;
    model.add(Conv1D(4, 4, 5));
    model.add(ReLU());
    model.add(GlobalMaxPool1D());
    model.add(Dense(4, 3));
    MeanSquaredError mse;
    const Objective objective = Objective::of(mse);
    SGD optimizer(model.trainable_parameters());
    const History history =
        fit(model, objective, optimizer, *train_loader, valid_loader.get(), one_epoch());
    const Keys evaluation = evaluation_keys(model, objective, source->task_names(),
                                            model.output_shapes(sequences_of(30)));
    CHECK(logged_keys(history.epochs.at(0)) ==
          sorted(epoch_metric_names(training_metric_names(objective), evaluation)));
  }
}

TEST_CASE("CsvEpochLogger: columns fixed up front, a missing figure is an empty cell") {
  test::TempDir tmp;
  const auto path = tmp.path() / "metrics.csv";
  Context context;
  {
    CsvEpochLogger logger(path, {"loss", "val_auroc", "val_auroc/CTCF"});
    logger.on_epoch_end(context.fit,
                        logs_of(0, {{"loss", 0.5}, {"val_auroc", 0.75}, {"val_auroc/CTCF", kNaN}}));
    // The second epoch lacks a column and logs a figure that is none: empty cell, not written.
    logger.on_epoch_end(context.fit, logs_of(1, {{"loss", 0.25}, {"val_auprc", 0.1}}));
  }
  CHECK(slurp(path) ==
        "epoch,loss,val_auroc,val_auroc/CTCF\n"
        "1,0.5,0.75,nan\n"
        "2,0.25,,\n");
  // The same columns continue the file (a resumed run).
  {
    CsvEpochLogger logger(path, {"loss", "val_auroc", "val_auroc/CTCF"});
    logger.on_epoch_end(context.fit, logs_of(2, {{"loss", 0.125}}));
  }
  CHECK(slurp(path).ends_with("2,0.25,,\n3,0.125,,\n"));
}

TEST_CASE("CsvEpochLogger: resuming with another column set is refused naming the file") {
  test::TempDir tmp;
  const auto path = tmp.path() / "metrics.csv";
  { CsvEpochLogger logger(path, {"loss", "val_loss", "val_auroc"}); }
  const std::string before = slurp(path);
  try {
    CsvEpochLogger logger(path, {"loss", "val_loss", "val_auroc", "val_mean_auroc"});
    FAIL("a changed column set was accepted");
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    CHECK(message.find(path.string()) != std::string::npos);
    CHECK(message.find("only in this run: val_mean_auroc") != std::string::npos);
  }
  try {
    CsvEpochLogger logger(path, {"loss", "val_auroc"});
    FAIL("a changed column set was accepted");
  } catch (const std::runtime_error& error) {
    CHECK(std::string(error.what()).find("only in the file: val_loss") != std::string::npos);
  }
  CHECK(slurp(path) == before);  // untouched
}

TEST_CASE("TensorBoardLogger: train and validation runs share tags, a test run is added") {
  test::TempDir tmp;
  const auto dir = tmp.path() / "tensorboard";
  Context context;
  {
    TensorBoardLogger logger(dir, 2);
    for (int64_t step = 1; step <= 4; ++step) {
      logger.on_batch_end(context.fit, {.epoch = 0,
                                        .step_in_epoch = step - 1,
                                        .steps_per_epoch = 4,
                                        .global_step = step,
                                        .batch_size = 8,
                                        .loss = 1.0 / static_cast<double>(step),
                                        .samples_per_second = 100.0});
    }
    for (int64_t epoch = 0; epoch < 2; ++epoch) {
      logger.on_epoch_end(context.fit, logs_of(epoch, {{"loss", 0.5 - 0.1 * epoch},
                                                       {"accuracy", 0.6},
                                                       {"learning_rate", 0.01},
                                                       {"val_loss", 0.7 - 0.1 * epoch},
                                                       {"val_accuracy", 0.55},
                                                       {"val_mean_auroc", 0.8},
                                                       {"val_auroc/CTCF", 0.9}}));
    }
    logger.log_evaluation("test", {{"loss", 0.65}, {"auroc/CTCF", 0.85}}, 2);
    logger.on_train_end(context.fit);
  }
  std::vector<std::string> runs;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    CHECK(entry.is_directory());
    runs.push_back(entry.path().filename().string());
  }
  CHECK(sorted(runs) == Keys{"test", "train", "validation"});

  const test::RunScalars train = test::read_run_scalars(dir / "train");
  const test::RunScalars validation = test::read_run_scalars(dir / "validation");
  const test::RunScalars test_run = test::read_run_scalars(dir / "test");
  Keys train_tags, validation_tags;
  for (const auto& [tag, points] : train) train_tags.push_back(tag);
  for (const auto& [tag, points] : validation) validation_tags.push_back(tag);
  CHECK(train_tags == Keys{"batch_learning_rate", "batch_loss", "batch_samples_per_second",
                           "epoch_accuracy", "epoch_learning_rate", "epoch_loss"});
  CHECK(validation_tags ==
        Keys{"epoch_accuracy", "epoch_auroc/CTCF", "epoch_loss", "epoch_mean_auroc"});
  // Epoch scalars at the 1-based epoch, step scalars every 2 steps.
  CHECK(train.at("epoch_loss") == std::map<int64_t, float>{{1, 0.5f}, {2, 0.4f}});
  CHECK(validation.at("epoch_loss") == std::map<int64_t, float>{{1, 0.7f}, {2, 0.6f}});
  CHECK(train.at("batch_loss") == std::map<int64_t, float>{{2, 0.5f}, {4, 0.25f}});
  CHECK(test_run.at("epoch_auroc/CTCF") == std::map<int64_t, float>{{2, 0.85f}});
  CHECK(test_run.at("epoch_loss") == std::map<int64_t, float>{{2, 0.65f}});
}

TEST_CASE("ProgressLogger: one line with the loss, accuracy and each term's main figures") {
  Context context;
  std::ostringstream out;
  ProgressLogger logger(out, false, 1,
                        {"loss", "val_loss", "val_bound_loss", "val_bound_auroc",
                         "val_bound_mean_auroc", "val_bound_auroc/a", "val_bound_auroc/b",
                         "val_level_loss", "val_level_pearson", "val_level_mean_pearson"});
  logger.on_epoch_end(context.fit, logs_of(0, {{"loss", 0.5},
                                               {"accuracy", 0.75},
                                               {"samples_per_second", 1000},
                                               {"epoch_seconds", 0.5},
                                               {"val_loss", 0.6},
                                               {"val_bound_loss", 0.4},
                                               {"val_bound_auroc", 0.8},
                                               {"val_bound_mean_auroc", 0.7},
                                               {"val_bound_auroc/a", 0.9},
                                               {"val_bound_auroc/b", 0.5},
                                               {"val_level_loss", 0.2},
                                               {"val_level_pearson", 0.3},
                                               {"val_level_mean_pearson", 0.3}}));
  CHECK(out.str() ==
        "epoch 1/3: loss 0.5000 accuracy 0.7500 | val_loss 0.6000 val_bound_loss 0.4000 "
        "val_bound_auroc 0.8000 val_bound_mean_auroc 0.7000 val_level_loss 0.2000 "
        "val_level_pearson 0.3000 | 1000 samples/s, 0.50 s\n");
}

TEST_CASE("EarlyStopping follows any logged figure in its direction") {
  Context context;
  SUBCASE("a mean over tasks is maximised") {
    EarlyStopping stopping({.monitor = "val_mean_auroc", .patience = 1});
    stopping.on_epoch_end(context.fit, logs_of(0, {{"val_mean_auroc", 0.6}}));
    stopping.on_epoch_end(context.fit, logs_of(1, {{"val_mean_auroc", 0.7}}));
    CHECK(stopping.best_epoch() == 1);
    stopping.on_epoch_end(context.fit, logs_of(2, {{"val_mean_auroc", 0.65}}));
    CHECK(context.fit.stop_training);
  }
  SUBCASE("an output's loss is minimised") {
    EarlyStopping stopping({.monitor = "val_counts_loss", .patience = 2});
    stopping.on_epoch_end(context.fit, logs_of(0, {{"val_counts_loss", 0.6}}));
    stopping.on_epoch_end(context.fit, logs_of(1, {{"val_counts_loss", 0.7}}));
    CHECK(stopping.best_epoch() == 0);
  }
  SUBCASE("a figure the epoch lacks is an error listing what it logged") {
    EarlyStopping stopping({.monitor = "val_auroc/CTCF"});
    CHECK_THROWS_WITH_AS(stopping.on_epoch_end(context.fit, logs_of(0, {{"loss", 0.6}})),
                         doctest::Contains("'val_auroc/CTCF' is not logged (validation data "
                                           "missing?); the epoch logged loss"),
                         Error);
  }
}

}  // namespace strand::train
