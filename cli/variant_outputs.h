// The outputs of a trained model that variants are scored on, as `strand variants` and
// strand.variants.score describe them: which outputs (one value per task, or a profile of
// (tracks, positions)), their kind (probabilities, counts, log counts, profile), their task or
// track names, and which track each track's reverse complement pairs with.
#pragma once

#include <string>
#include <vector>

#include "cli/trained_model.h"
#include "variants/variant_scorer.h"

namespace strand::cli {

/// How a caller's messages name the output and task choices: the CLI's flags, or a Python
/// function's arguments ("output", "task").
struct OutputChoiceNames {
  std::string output = "--output";
  std::string task = "--task";
  std::string rc_average = "--rc-average";
};

/// The outputs to score: those named in `output_names`, else every output of one value per
/// task or a profile; with `tasks` (names or indices), each output keeps the tasks it has among
/// them and an output left with none is dropped. Throws ConfigError naming the choice for an
/// unknown output or task, or an output of another shape.
std::vector<variants::ScoredOutput> scored_outputs(const TrainedModel& trained,
                                                   const std::vector<std::string>& output_names,
                                                   const std::vector<std::string>& tasks,
                                                   const OutputChoiceNames& choice = {});

/// Sets each output's reverse_tracks for an average with the reverse complement: the rule of
/// `strand predict --rc-average` (output_reverse_tracks(): a stranded pair's tracks swap in
/// per-track outputs and profiles). Throws ConfigError naming choice.rc_average when the strands
/// to swap are unknown.
void pair_reverse_strands(const TrainedModel& trained, std::vector<variants::ScoredOutput>& outputs,
                          const OutputChoiceNames& choice = {});

}  // namespace strand::cli
