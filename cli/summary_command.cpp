// The model table of a config: built for the data's sizes. With data files they are read (their
// tasks, tracks and window); a preset without data files shows the sizes it was published with.
#include "cli/summary_command.h"

#include <fmt/format.h>

#include "app/data_builder.h"
#include "app/model_builder.h"
#include "app/presets.h"

namespace strand::cli {

using app::build_model;
using app::build_run_data;
using app::ConfigError;
using app::data_dimensions;
using app::DataDimensions;
using app::find_preset;
using app::freeze_layers;
using app::input_shapes;
using app::Preset;
using app::RunConfig;
using app::validate_numbers;
namespace {

// The data sizes the summary's model is built for, and where they come from.
DataDimensions summary_dimensions(const RunConfig& config, std::string& source) {
  DataDimensions data;
  if (config.data.source == "simulated") {
    data.length = static_cast<int64_t>(config.data.simulated.simulation.seq_length);
    data.tasks = 1;
    source = "the simulated data";
    return data;
  }
  if (!config.data.files.loader.fasta.empty()) {
    source = "the data files";
    return data_dimensions(*build_run_data(config).train.source);
  }
  const Preset* preset = find_preset(config.preset);
  if (preset == nullptr) {
    throw ConfigError(
        "summary: give the data (--fasta and --intervals) or a preset (--model) to size the "
        "model for");
  }
  const data::LoaderSettings& loader = config.data.files.loader;
  data = preset->published;
  if (loader.window > 0) data.length = loader.window;
  if (loader.signals.profile_length > 0) data.profile_length = loader.signals.profile_length;
  source = fmt::format("the {} preset's published data", preset->name);
  return data;
}

}  // namespace

std::string model_summary(const RunConfig& config) {
  validate_numbers(config);
  std::string source;
  const DataDimensions data = summary_dimensions(config, source);
  manual_seed(config.seed);
  const std::shared_ptr<Model> model = build_model(config.model, data);
  freeze_layers(*model, config.freeze);
  std::string text = fmt::format("input: ({}) base codes", data.length);
  if (data.control_tracks > 0) {
    text += fmt::format(", control ({}, {})", data.control_tracks, data.length);
  }
  text += fmt::format("; {} task(s)", data.tasks);
  if (data.profile_tracks > 0) {
    text += fmt::format(", profile ({}, {})", data.profile_tracks, data.profile_length);
  }
  text += fmt::format(" ({})\n", source);
  return text + model->summary(input_shapes(data));
}

}  // namespace strand::cli
