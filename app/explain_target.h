// The flags that choose what `strand explain` and `strand marginalize` explain: --output (a
// model output by name), --task (a task by name or index, or "all") and --predictions, turned
// into an explain::Target with the names of its tasks. Unknown names fail naming the closest.
#pragma once

#include <string>
#include <vector>

#include "app/trained_model.h"
#include "explain/target.h"

namespace strand::app {

/// A resolved target and what to call its tasks.
struct ResolvedTarget {
  explain::Target target;
  std::string output_name;
  std::vector<std::string> task_names;  ///< every task of the output
  std::string task_label;               ///< the task explained, or "all"
};

/// The target `output` (empty: the first output of one value per task, else the first), `task`
/// (empty: the only task; "all": their sum; a task name or 0-based index) and `predictions`
/// name for `trained`. Throws ConfigError naming --output or --task and the closest valid name.
ResolvedTarget resolve_target(const TrainedModel& trained, const std::string& output,
                              const std::string& task, bool predictions);

/// Throws ConfigError when the model reads inputs beyond the sequence (a control track), which
/// these commands cannot supply, naming the command and the input.
void require_sequence_only(const Model& model, const std::string& command);

/// The trained model of `files` for sequences of `length` bases, as explain and marginalize
/// take it. Throws ConfigError naming `command` when it was trained on another length, or when
/// it reads inputs beyond the sequence (require_sequence_only()).
TrainedModel load_sequence_model(const TrainedModelFiles& files, const RunConfig& config,
                                 int64_t length, const std::string& command);

}  // namespace strand::app
