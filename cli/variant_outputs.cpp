// The outputs of a trained model that variants are scored on (cli/variant_outputs.h).
#include "cli/variant_outputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "cli/config_error.h"
#include "cli/model_builder.h"
#include "data/data_error.h"
#include "data/signals/signal_tracks.h"
#include "data/text_fields.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;
using variants::OutputKind;
using variants::ScoredOutput;

// The target an output of a graph trains on ("labels" for a layer list).
std::string output_target(const RunConfig& config, const std::string& name) {
  for (const OutputSpec& spec : config.model.outputs) {
    if (spec.name == name) return spec.target;
  }
  return "labels";
}

// Profile tracks as the run's profile bigWigs name them (file names without .bw).
void describe_tracks(const RunConfig& config, int64_t tracks, ScoredOutput& output) {
  if (config.data.source != "files") return;
  std::vector<data::TrackGroup> groups;
  try {
    groups = data::parse_track_groups(config.data.files.loader.signals.profile_bigwigs,
                                      "profile bigWigs");
  } catch (const data::DataError&) {
    return;
  }
  std::vector<std::string> names;
  for (const data::TrackGroup& group : groups) {
    for (size_t f = 0; f < group.files.size(); ++f) {
      std::string stem = fs::path(group.files[f]).filename().string();
      for (const char* extension : {".bigWig", ".bigwig", ".bw"}) {
        if (stem.ends_with(extension)) stem.resize(stem.size() - std::strlen(extension));
      }
      names.push_back(stem);
    }
  }
  if (static_cast<int64_t>(names.size()) != tracks) return;
  output.task_names = names;
}

// The tasks asked for: names or indices; each output keeps the tasks it has among them, and an
// output left with none is not scored.
void select_tasks(const std::vector<std::string>& wanted, const std::string& task_name,
                  std::vector<ScoredOutput>& outputs) {
  std::vector<bool> used(wanted.size(), false);
  for (ScoredOutput& output : outputs) {
    for (size_t w = 0; w < wanted.size(); ++w) {
      const auto named = std::find(output.task_names.begin(), output.task_names.end(), wanted[w]);
      int64_t task = -1;
      if (named != output.task_names.end()) {
        task = named - output.task_names.begin();
      } else if (const auto index = data::parse_int(wanted[w]);
                 index && *index >= 0 && *index < static_cast<int64_t>(output.task_names.size())) {
        task = *index;
      }
      if (task >= 0) {
        output.tasks.push_back(task);
        used[w] = true;
      }
    }
  }
  for (size_t w = 0; w < wanted.size(); ++w) {
    if (used[w]) continue;
    std::vector<std::string> known;
    for (const ScoredOutput& output : outputs) {
      for (const std::string& name : output.task_names) known.push_back(name);
    }
    throw ConfigError(fmt::format(
        "{}: '{}' is neither a task name nor an index of the scored outputs (tasks: {})", task_name,
        wanted[w], fmt::join(known, ", ")));
  }
  std::erase_if(outputs, [](const ScoredOutput& output) { return output.tasks.empty(); });
}

}  // namespace

std::vector<ScoredOutput> scored_outputs(const TrainedModel& trained,
                                         const std::vector<std::string>& output_names,
                                         const std::vector<std::string>& tasks,
                                         const OutputChoiceNames& choice) {
  const Model& model = *trained.model;
  const std::vector<std::string> names = model.output_names();
  const std::vector<Shape> shapes = model.output_shapes(input_shapes(trained.dimensions));
  std::vector<size_t> chosen;
  if (output_names.empty()) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (shapes[i].size() == 1 || shapes[i].size() == 2) chosen.push_back(i);
    }
    if (chosen.empty()) {
      throw ConfigError(fmt::format(
          "variants: no output of the model gives one value per task or a profile (its outputs: "
          "{})",
          fmt::join(names, ", ")));
    }
  } else {
    for (const std::string& name : output_names) {
      chosen.push_back(find_model_output(model, trained.dimensions, name, choice.output));
    }
  }
  std::vector<ScoredOutput> outputs;
  for (const size_t index : chosen) {
    ScoredOutput output;
    output.index = index;
    output.name = names[index];
    const Shape& shape = shapes[index];
    const std::string target = output_target(trained.config, names[index]);
    if (shape.size() == 2) {
      output.kind = OutputKind::kProfile;
      describe_tracks(trained.config, shape[0], output);
    } else if (shape.size() == 1) {
      if (target == "log_counts" || target == "log_total_counts") {
        output.kind = OutputKind::kLogCounts;
      } else if (model.output_activation(index) == Activation::kExp) {
        output.kind = OutputKind::kCounts;
      }
      if (static_cast<int64_t>(trained.task_names.size()) == shape[0] &&
          target != "log_total_counts") {
        output.task_names = trained.task_names;
      }
    } else {
      throw ConfigError(fmt::format(
          "{}: '{}' gives ({}) per window; variants are scored on outputs of one value per task "
          "or on profiles (tracks, positions)",
          choice.output, names[index], fmt::join(shape, ", ")));
    }
    const int64_t count = shape[0];
    if (static_cast<int64_t>(output.task_names.size()) != count) {
      output.task_names.clear();
      for (int64_t t = 0; t < count; ++t) {
        output.task_names.push_back(count == 1 ? output.name
                                               : fmt::format("{}_{}", output.name, t));
      }
    }
    outputs.push_back(std::move(output));
  }
  if (!tasks.empty()) select_tasks(tasks, choice.task, outputs);
  return outputs;
}

void pair_reverse_strands(const TrainedModel& trained, std::vector<ScoredOutput>& outputs,
                          const OutputChoiceNames& choice) {
  for (ScoredOutput& output : outputs) {
    output.reverse_tracks = output_reverse_tracks(trained, output.index, choice.rc_average);
  }
}

}  // namespace strand::cli
