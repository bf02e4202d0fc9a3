// Locating, building and loading a trained model (app/trained_model.h).
#include "app/trained_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <exception>
#include <utility>

#include "app/bias_model.h"
#include "app/config_error.h"
#include "app/data_builder.h"
#include "app/model_builder.h"
#include "app/run_directory.h"
#include "data/signals/signal_tracks.h"
#include "layers/module.h"
#include "train/checkpoint.h"
#include "train/objective.h"
#include "train/reverse_complement_average.h"

namespace strand::app {

namespace fs = std::filesystem;

TrainedModelFiles locate_trained_model(const std::string& model, const std::string& config,
                                       bool without_bias) {
  const fs::path path(model);
  TrainedModelFiles files;
  files.without_bias = without_bias;
  if (fs::is_directory(path)) {
    RunPaths run{path};
    files.checkpoint =
        fs::exists(run.best_checkpoint()) ? run.best_checkpoint() : run.last_checkpoint();
    files.config = run.config();
  } else if (fs::is_regular_file(path)) {
    files.checkpoint = path;
    // <run>/checkpoints/best.safetensors -> <run>/config.json
    files.config = path.parent_path().parent_path() / "config.json";
  } else {
    throw ConfigError(
        fmt::format("--model: '{}' is neither a run directory nor a checkpoint", model));
  }
  if (!config.empty()) files.config = config;
  if (!fs::exists(files.checkpoint)) {
    throw ConfigError(
        fmt::format("--model: checkpoint '{}' does not exist", files.checkpoint.string()));
  }
  if (!fs::exists(files.config)) {
    throw ConfigError(fmt::format("--model: no config '{}' to build the model from; pass --config",
                                  files.config.string()));
  }
  return files;
}

int64_t run_input_length(const RunConfig& config) {
  return config.data.source == "files"
             ? config.data.files.loader.window
             : static_cast<int64_t>(config.data.simulated.simulation.seq_length);
}

TrainedModel load_trained_model(const TrainedModelFiles& files, RunConfig config,
                                int64_t fallback_length) {
  TrainedModel trained;
  trained.files = files;
  // The model as it was trained: the data sizes and task names its checkpoint records (older
  // checkpoints: the input's length and the run's files).
  const train::CheckpointMetadata metadata = train::read_checkpoint_metadata(files.checkpoint);
  if (const auto recorded = checkpoint_dimensions(metadata, files.checkpoint.string())) {
    trained.dimensions = *recorded;
  } else {
    trained.dimensions.length = fallback_length;
    trained.dimensions.tasks = static_cast<int64_t>(read_run_task_names(config).size());
  }
  trained.task_names = checkpoint_task_names(metadata);
  if (trained.task_names.empty()) trained.task_names = read_run_task_names(config);
  // Weights are drawn, then replaced by the checkpoint's: seeding keeps that deterministic.
  manual_seed(config.seed);
  if (files.without_bias && config.bias_model.empty()) {
    throw ConfigError(fmt::format(
        "--no-bias: the model of '{}' has no bias model (it was not trained with --bias-model)",
        files.checkpoint.string()));
  }
  // <run>/checkpoints/best.safetensors -> <run>, which keeps its bias model's run.
  std::shared_ptr<Model> accessibility;
  trained.model = build_run_model(config, trained.dimensions,
                                  files.checkpoint.parent_path().parent_path(), &accessibility);
  try {
    train::load_checkpoint(files.checkpoint, *trained.model);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("--model: {}", error.what()));
  }
  if (files.without_bias) trained.model = accessibility;
  trained.config = std::move(config);
  return trained;
}

TrainedModel load_trained_model(const TrainedModelFiles& files) {
  RunConfig config = load_config_file(files.config);
  const int64_t length = run_input_length(config);
  return load_trained_model(files, std::move(config), length);
}

size_t find_model_output(const Model& model, const DataDimensions& data, const std::string& name,
                         std::string_view flag) {
  const std::vector<std::string> names = model.output_names();
  if (!name.empty()) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      throw ConfigError(fmt::format("{}: the model has no output '{}'; its outputs are {}", flag,
                                    name, fmt::join(names, ", ")));
    }
    return static_cast<size_t>(it - names.begin());
  }
  const std::vector<Shape> shapes = model.output_shapes(input_shapes(data));
  const auto scalar_per_task = std::find_if(shapes.begin(), shapes.end(),
                                            [](const Shape& shape) { return shape.size() == 1; });
  return scalar_per_task == shapes.end() ? 0
                                         : static_cast<size_t>(scalar_per_task - shapes.begin());
}

std::vector<int64_t> output_reverse_tracks(const TrainedModel& trained, size_t output,
                                           std::string_view option) {
  const Model& model = *trained.model;
  const std::string name = model.output_names().at(output);
  const Shape shape = model.output_shapes(input_shapes(trained.dimensions)).at(output);
  // A layer list trains its one output on the labels; a graph names each output's target.
  std::string target = "labels";
  for (const OutputSpec& spec : trained.config.model.outputs) {
    if (spec.name == name) target = spec.target;
  }
  std::vector<data::TrackGroup> groups;
  const std::vector<std::string>& entries =
      trained.config.data.files.loader.signals.profile_bigwigs;
  try {
    if (trained.config.data.source == "files" && !entries.empty()) {
      groups = data::parse_track_groups(entries, "data.profile_bigwigs");
    }
    return train::reverse_complement_tracks(train::parse_target(target),
                                            shape.empty() ? 1 : shape[0], groups, name);
  } catch (const Error& error) {
    throw ConfigError(fmt::format("{}: {}", option, error.what()));
  }
}

}  // namespace strand::app
