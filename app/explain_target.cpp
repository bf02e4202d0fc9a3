// Resolving --output, --task and --predictions (app/explain_target.h).
#include "app/explain_target.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "app/config_error.h"
#include "app/edit_distance.h"
#include "app/model_builder.h"
#include "data/sources/sequence_source.h"
#include "data/text_fields.h"
#include "layers/graph.h"

namespace strand::app {
namespace {

// "; did you mean 'x'?" for the name of `names` closest to `name`, when one is close.
std::string closest(const std::string& name, const std::vector<std::string>& names) {
  size_t best = std::numeric_limits<size_t>::max();
  std::string choice;
  for (const std::string& candidate : names) {
    const size_t d = edit_distance(name, candidate);
    if (d < best) {
      best = d;
      choice = candidate;
    }
  }
  if (choice.empty() || best > std::max<size_t>(2, name.size() / 2)) return "";
  return fmt::format("; did you mean '{}'?", choice);
}

}  // namespace

void require_sequence_only(const Model& model, const std::string& command) {
  if (const auto* graph = dynamic_cast<const Graph*>(&model)) {
    for (const std::string& input : graph->input_names()) {
      if (input != kSequenceInput) {
        throw ConfigError(fmt::format(
            "{}: the model reads the input '{}' (a control track) besides the sequence; {} "
            "explains models of the sequence alone",
            command, input, command));
      }
    }
  }
}

TrainedModel load_sequence_model(const TrainedModelFiles& files, const RunConfig& config,
                                 int64_t length, const std::string& command) {
  TrainedModel trained = load_trained_model(files, config, length);
  if (trained.dimensions.length != length) {
    throw ConfigError(fmt::format(
        "{}: the model was trained on {} bp windows, the input has {} (give --window {}, or "
        "--center for longer FASTA records)",
        command, trained.dimensions.length, length, trained.dimensions.length));
  }
  require_sequence_only(*trained.model, command);
  return trained;
}

ResolvedTarget resolve_target(const TrainedModel& trained, const std::string& output,
                              const std::string& task, bool predictions) {
  const Model& model = *trained.model;
  const std::vector<std::string> outputs = model.output_names();
  ResolvedTarget resolved;
  if (!output.empty() && std::find(outputs.begin(), outputs.end(), output) == outputs.end()) {
    throw ConfigError(fmt::format("--output: the model has no output '{}'{} (its outputs: {})",
                                  output, closest(output, outputs), fmt::join(outputs, ", ")));
  }
  resolved.target.output = find_model_output(model, trained.dimensions, output);
  resolved.output_name = outputs[resolved.target.output];
  resolved.target.activation = predictions;
  explain::TargetShape shape;
  try {
    explain::Target probe = resolved.target;
    probe.task = -1;
    shape = explain::check_target(model, trained.dimensions.length, probe);
  } catch (const Error& error) {
    throw ConfigError(fmt::format("--output '{}': {}", resolved.output_name, error.what()));
  }
  // The labels' names when the output has one value per label column; tracks are numbered.
  if (!shape.profile && static_cast<int64_t>(trained.task_names.size()) == shape.tasks &&
      model.output_shapes(input_shapes(trained.dimensions))[resolved.target.output].size() == 1) {
    resolved.task_names = trained.task_names;
  } else {
    resolved.task_names = data::SequenceSource::default_task_names(shape.tasks);
  }
  const std::vector<std::string>& names = resolved.task_names;
  if (task.empty()) {
    if (shape.tasks != 1) {
      throw ConfigError(fmt::format(
          "--task: output '{}' has {} tasks ({}); pass --task NAME, INDEX or all (their sum)",
          resolved.output_name, shape.tasks, fmt::join(names, ", ")));
    }
    resolved.target.task = 0;
  } else if (task == "all") {
    resolved.target.task = -1;
  } else if (const auto named = std::find(names.begin(), names.end(), task); named != names.end()) {
    resolved.target.task = named - names.begin();
  } else if (const auto index = data::parse_int(task);
             index && *index >= 0 && *index < static_cast<int64_t>(names.size())) {
    resolved.target.task = *index;
  } else {
    throw ConfigError(fmt::format(
        "--task: output '{}' has no task '{}'{} (its tasks: {}; or an index in [0, {}), or all)",
        resolved.output_name, task, closest(task, names), fmt::join(names, ", "), names.size()));
  }
  resolved.task_label = resolved.target.task < 0 ? "all" : names[resolved.target.task];
  try {
    explain::check_target(model, trained.dimensions.length, resolved.target);
  } catch (const Error& error) {
    throw ConfigError(fmt::format("--predictions: {}", error.what()));
  }
  return resolved;
}

}  // namespace strand::app
