// The standard callbacks.
#include "train/callbacks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <ostream>
#include <span>

#include "core/parse_number.h"
#include "fmt/format.h"

namespace strand::train {

// ---- EarlyStopping ------------------------------------------------------------------------

bool monitor_maximizes(const std::string& monitor, const std::string& mode, const char* owner) {
  if (mode == "auto") return !is_loss_name(monitor);
  STRAND_CHECK(mode == "min" || mode == "max", "{}: mode must be 'min', 'max' or 'auto', got '{}'",
               owner, mode);
  return mode == "max";
}

EarlyStopping::EarlyStopping(EarlyStoppingOptions options) : options_(std::move(options)) {
  STRAND_CHECK(options_.patience >= 0, "EarlyStopping: patience must be >= 0, got {}",
               options_.patience);
  maximize_ = monitor_maximizes(options_.monitor, options_.mode, "EarlyStopping");
  best_ = maximize_ ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
}

void EarlyStopping::on_train_begin(FitContext&) {}

bool EarlyStopping::improved(double value) const {
  if (std::isnan(value)) return false;
  return maximize_ ? value > best_ + options_.min_delta : value < best_ - options_.min_delta;
}

void EarlyStopping::on_epoch_end(FitContext& context, const EpochLogs& logs) {
  auto it = logs.values.find(options_.monitor);
  if (it == logs.values.end()) {
    std::vector<std::string> logged;
    for (const auto& [key, value] : logs.values) logged.push_back(key);
    throw Error(fmt::format(
        "EarlyStopping: monitored value '{}' is not logged (validation data missing?); the "
        "epoch logged {}",
        options_.monitor, fmt::join(logged, ", ")));
  }
  if (improved(it->second)) {
    best_ = it->second;
    best_epoch_ = logs.epoch;
    wait_ = 0;
    if (options_.restore_best_weights) {
      best_weights_.clear();
      for (const Var& p : context.model.parameters()) best_weights_.push_back(p.value().clone());
    }
  } else if (++wait_ >= options_.patience) {
    context.stop_training = true;
  }
}

void EarlyStopping::on_train_end(FitContext& context) {
  if (!options_.restore_best_weights || best_weights_.empty()) return;
  std::vector<Var> parameters = context.model.parameters();
  for (size_t i = 0; i < parameters.size(); ++i)
    parameters[i].mutable_value().copy_(best_weights_[i]);
}

CheckpointMetadata EarlyStopping::state() const {
  return {{"early_stopping.best", fmt::format("{}", best_)},
          {"early_stopping.best_epoch", std::to_string(best_epoch_)},
          {"early_stopping.wait", std::to_string(wait_)}};
}

void EarlyStopping::restore(const CheckpointMetadata& state, std::vector<Tensor> best_weights) {
  auto get = [&](const char* key) {
    auto it = state.find(key);
    STRAND_CHECK(it != state.end(), "checkpoint metadata lacks '{}'", key);
    return it->second;
  };
  // Whole values only (std::stoll would read "1x" as 1); nothing changes unless all are valid.
  auto integer = [&](const char* key, int64_t lowest) {
    const std::string text = get(key);
    const std::optional<int64_t> value = parse_int64(text);
    STRAND_CHECK(value && *value >= lowest,
                 "checkpoint metadata '{}' is '{}', expected an integer >= {}", key, text, lowest);
    return *value;
  };
  const std::string best_text = get("early_stopping.best");
  const std::optional<double> best = parse_double(best_text);
  STRAND_CHECK(best && !std::isnan(*best),
               "checkpoint metadata 'early_stopping.best' is '{}', expected a number", best_text);
  const int64_t best_epoch = integer("early_stopping.best_epoch", -1);
  const int64_t wait = integer("early_stopping.wait", 0);
  best_ = *best;
  best_epoch_ = best_epoch;
  wait_ = wait;
  best_weights_ = std::move(best_weights);
}

// ---- ModelCheckpoint ------------------------------------------------------------------------

ModelCheckpoint::ModelCheckpoint(std::filesystem::path directory, std::string monitor,
                                 bool save_best, bool save_last,
                                 std::function<CheckpointMetadata()> extra_metadata,
                                 std::function<bool(const EpochLogs&)> is_best)
    : directory_(std::move(directory)),
      monitor_(std::move(monitor)),
      save_best_(save_best),
      save_last_(save_last),
      extra_metadata_(std::move(extra_metadata)),
      is_best_(std::move(is_best)) {}

bool ModelCheckpoint::improved(const EpochLogs& logs) {
  if (is_best_) return is_best_(logs);
  auto it = logs.values.find(monitor_);
  if (it == logs.values.end() || std::isnan(it->second)) return false;
  const bool maximize = monitor_maximizes(monitor_, "auto", "ModelCheckpoint");
  if (best_ && !(maximize ? it->second > *best_ : it->second < *best_)) return false;
  best_ = it->second;
  return true;
}

void ModelCheckpoint::on_epoch_end(FitContext& context, const EpochLogs& logs) {
  CheckpointMetadata metadata = extra_metadata_ ? extra_metadata_() : CheckpointMetadata{};
  metadata["epoch"] = std::to_string(logs.epoch);
  metadata["epochs_completed"] = std::to_string(logs.epoch + 1);
  metadata["global_step"] = std::to_string(logs.global_step);
  for (const auto& [key, value] : logs.values) metadata["logs." + key] = fmt::format("{}", value);
  if (save_best_ && improved(logs)) {
    save_checkpoint(directory_ / "best.safetensors", context.model, nullptr, metadata);
  }
  // Last is written after best, so a resume always finds a best file as recent as last.
  if (save_last_) {
    save_checkpoint(directory_ / "last.safetensors", context.model, &context.optimizer, metadata);
  }
}

void ModelCheckpoint::on_train_interrupted(FitContext& context, const PartialEpoch& partial) {
  if (!save_last_) return;
  CheckpointMetadata metadata = extra_metadata_ ? extra_metadata_() : CheckpointMetadata{};
  for (const auto& [key, value] : partial_epoch_metadata(partial)) metadata[key] = value;
  save_checkpoint(directory_ / "last.safetensors", context.model, &context.optimizer, metadata);
}

// ---- TensorBoardLogger ------------------------------------------------------------------------

namespace {
// Keras's run directories and tag prefixes.
constexpr const char* kTrainRun = "train";
constexpr const char* kValidationRun = "validation";
constexpr const char* kValidationPrefix = "val_";
}  // namespace

TensorBoardLogger::TensorBoardLogger(std::filesystem::path log_dir, int64_t every_steps)
    : log_dir_(std::move(log_dir)), every_steps_(every_steps) {
  // The train run exists from the start, as the single event file did before: an empty run
  // directory shows the run began.
  writer(kTrainRun);
}

SummaryWriter& TensorBoardLogger::writer(const std::string& run) {
  std::unique_ptr<SummaryWriter>& slot = writers_[run];
  if (!slot) slot = std::make_unique<SummaryWriter>(log_dir_ / run);
  return *slot;
}

void TensorBoardLogger::flush() {
  for (auto& [run, writer] : writers_) writer->flush();
}

void TensorBoardLogger::on_batch_end(FitContext& context, const BatchLogs& logs) {
  if (every_steps_ <= 0 || logs.global_step % every_steps_ != 0) return;
  SummaryWriter& train = writer(kTrainRun);
  train.add_scalar("batch_loss", logs.loss, logs.global_step);
  train.add_scalar("batch_samples_per_second", logs.samples_per_second, logs.global_step);
  train.add_scalar("batch_learning_rate", context.optimizer.learning_rate(), logs.global_step);
}

void TensorBoardLogger::on_epoch_end(FitContext&, const EpochLogs& logs) {
  for (const auto& [key, value] : logs.values) {
    if (key.starts_with(kValidationPrefix)) {
      const std::string name = key.substr(std::string_view(kValidationPrefix).size());
      writer(kValidationRun).add_scalar("epoch_" + name, value, logs.epoch + 1);
    } else {
      writer(kTrainRun).add_scalar("epoch_" + key, value, logs.epoch + 1);
    }
  }
  flush();
}

void TensorBoardLogger::on_train_end(FitContext&) { flush(); }

void TensorBoardLogger::on_train_interrupted(FitContext&, const PartialEpoch&) { flush(); }

void TensorBoardLogger::log_evaluation(const std::string& run,
                                       const std::map<std::string, double>& values, int64_t step) {
  SummaryWriter& out = writer(run);
  for (const auto& [key, value] : values) out.add_scalar("epoch_" + key, value, step);
  out.flush();
}

// ---- CSV loggers
// ----------------------------------------------------------------------------------

namespace {
std::vector<std::string> with_epoch_column(std::vector<std::string> metrics) {
  metrics.insert(metrics.begin(), "epoch");
  return metrics;
}
}  // namespace

CsvEpochLogger::CsvEpochLogger(std::filesystem::path path, std::vector<std::string> metrics)
    : logger_(std::move(path), with_epoch_column(std::move(metrics))) {}

void CsvEpochLogger::on_epoch_end(FitContext&, const EpochLogs& logs) {
  std::vector<std::optional<double>> row;
  row.reserve(logger_.columns().size());
  for (const std::string& column : logger_.columns()) {
    if (column == "epoch") {
      row.emplace_back(static_cast<double>(logs.epoch + 1));
      continue;
    }
    const auto it = logs.values.find(column);
    row.push_back(it == logs.values.end() ? std::nullopt : std::optional<double>(it->second));
  }
  logger_.log(std::span<const std::optional<double>>(row));
}

StepLossLogger::StepLossLogger(std::filesystem::path path)
    : logger_(std::move(path), {"step", "epoch", "loss"}) {}

void StepLossLogger::on_batch_end(FitContext&, const BatchLogs& logs) {
  const double row[] = {static_cast<double>(logs.global_step), static_cast<double>(logs.epoch + 1),
                        logs.loss};
  logger_.log(row);
}

void StepLossLogger::on_epoch_end(FitContext&, const EpochLogs&) {}

// ---- ProgressLogger ------------------------------------------------------------------------

ProgressLogger::ProgressLogger(std::ostream& out, bool interactive, int64_t log_every_steps,
                               std::vector<std::string> order)
    : out_(out),
      bar_(out, interactive, static_cast<size_t>(std::max<int64_t>(log_every_steps, 1))),
      order_(std::move(order)) {}

void ProgressLogger::on_epoch_begin(FitContext& context, int64_t epoch) {
  // Started before the first batch, so the first step's time counts in samples/s.
  bar_.start_epoch(epoch + 1, static_cast<size_t>(context.steps_per_epoch));
  started_ = true;
}

void ProgressLogger::on_batch_end(FitContext&, const BatchLogs& logs) {
  bar_.update(static_cast<size_t>(logs.step_in_epoch + 1), static_cast<size_t>(logs.batch_size),
              logs.loss);
}

void ProgressLogger::on_epoch_end(FitContext& context, const EpochLogs& logs) {
  if (started_) bar_.finish_epoch();
  std::string line =
      fmt::format("epoch {}/{}: loss {:.4f}", logs.epoch + 1, context.epochs, logs.get("loss"));
  if (logs.values.count("accuracy")) line += fmt::format(" accuracy {:.4f}", logs.get("accuracy"));
  // The validation figures in the given order, then any others by name.
  std::vector<std::string> validation;
  for (const std::string& key : order_) {
    if (key.starts_with("val_") && logs.values.count(key)) validation.push_back(key);
  }
  for (const auto& [key, value] : logs.values) {
    if (key.starts_with("val_") &&
        std::find(validation.begin(), validation.end(), key) == validation.end()) {
      validation.push_back(key);
    }
  }
  if (!validation.empty()) {
    line += " |";
    for (const std::string& key : main_metric_names(validation)) {
      line += fmt::format(" {} {:.4f}", key, logs.get(key));
    }
  }
  line += fmt::format(" | {:.0f} samples/s, {:.2f} s", logs.get("samples_per_second"),
                      logs.get("epoch_seconds"));
  out_ << line << std::endl;
}

void ProgressLogger::on_train_interrupted(FitContext& context, const PartialEpoch& partial) {
  if (started_) bar_.finish_epoch();
  out_ << fmt::format("epoch {}/{}: stopped after step {} of {}", partial.epoch + 1, context.epochs,
                      partial.steps, context.steps_per_epoch)
       << std::endl;
}

}  // namespace strand::train
