// A trained model ready to score: its checkpoint and config.json found from a run directory or
// a checkpoint path, the model built for the data sizes the checkpoint records, and its weights
// loaded. `strand predict` starts here, and so does everything that reads a trained model
// (attributions, variant scores, the Python package).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/model_spec.h"
#include "app/run_config.h"
#include "layers/model.h"

namespace strand::app {

/// Where a trained model's weights and description are.
struct TrainedModelFiles {
  std::filesystem::path checkpoint;  ///< a run's best checkpoint, else its last; or the file given
  std::filesystem::path config;      ///< the config.json the model is built from
  /// Open a bias-factorized model's accessibility part alone (--no-bias; app/bias_model.h).
  bool without_bias = false;
};

/// The files of `model`: a run directory (its best checkpoint, else its last, and its
/// config.json) or a checkpoint file (and `<run>/config.json` two folders up). A non-empty
/// `config` replaces the config.json. `without_bias` opens a bias-factorized model (ChromBPNet)
/// without its bias model (--no-bias). Throws ConfigError naming --model or the missing file.
TrainedModelFiles locate_trained_model(const std::string& model, const std::string& config = "",
                                       bool without_bias = false);

/// A model with its trained weights, and what its run says about it.
struct TrainedModel {
  TrainedModelFiles files;
  RunConfig config;                     ///< the run's resolved config
  DataDimensions dimensions;            ///< input length, tasks, profile and control sizes
  std::vector<std::string> task_names;  ///< the labels' task names (empty when unknown)
  std::shared_ptr<Model> model;         ///< built for `dimensions`, weights loaded
};

/// Builds the model `config` describes for the data sizes its checkpoint records and loads the
/// checkpoint's weights. `fallback_length` is the input length of a checkpoint written before
/// the sizes were recorded (its tasks then come from the run's files). A run with a bias model
/// (config.bias_model) is built with it (app/bias_model.h), or without it when
/// files.without_bias. Throws ConfigError naming --model when the checkpoint does not fit the
/// model, and --no-bias when the run has no bias model.
TrainedModel load_trained_model(const TrainedModelFiles& files, RunConfig config,
                                int64_t fallback_length);

/// load_trained_model() with the config read from `files.config`, and the run's window (or
/// simulated length) as the fallback length.
TrainedModel load_trained_model(const TrainedModelFiles& files);

/// The input length a run trained on: its window, or its simulated sequences' length.
int64_t run_input_length(const RunConfig& config);

/// The index of the output called `name` among the model's outputs; with an empty name, the
/// first output of one value per task and sample ((B, T)), else the first. Throws ConfigError
/// naming `flag` and the model's outputs when there is no such output.
size_t find_model_output(const Model& model, const DataDimensions& data, const std::string& name,
                         std::string_view flag = "--output");

/// (tracks) the reverse complement's track each track of output `output` averages with
/// (train/reverse_complement_average.h, from the target the run trained the output on and its
/// profile bigWigs). Throws ConfigError naming `option` when the strands to swap are unknown.
std::vector<int64_t> output_reverse_tracks(const TrainedModel& trained, size_t output,
                                           std::string_view option);

}  // namespace strand::app
