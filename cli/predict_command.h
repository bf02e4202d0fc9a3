// `strand predict`: scores from a trained run (or checkpoint) for FASTA + interval/record files,
// a FASTA's records, tiles across genomic regions, or the simulated test split, written as a
// TSV or (tiles) a bedGraph.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/config_keys.h"
#include "app/pass_options.h"
#include "app/scoring_inputs.h"

namespace strand::cli {

/// The settings of `strand predict`, set by its flags (predict_keys()).
struct PredictOptions {
  std::string model;          // a run directory or a checkpoint file
  std::string config;         // config.json to build the model from (default: the run's)
  bool with_bias = true;      // false: a bias-factorized model without its bias model (--no-bias)
  app::ScoringInputs inputs;  // the sequences scored (app/scoring_inputs.h)
  bool rc_average = false;    // average each score with the reverse complement's
  std::string out;            // a TSV or bedGraph path, or "-" for standard output
  std::string out_format;     // tsv or bedgraph; default: bedgraph for .bedgraph/.bg
  std::string task;           // bedGraph of a multi-task model: the task, by name or index
  std::string output;         // a graph model's output; default: its first (B, T) output
  int64_t batch_size = app::kPredictBatchSize;
  int64_t threads = 0;         // 0: every core
  std::string device = "cpu";  // where the model runs: cpu or cuda[:N]
  std::string precision =
      "fp32";  // of float32 matrix math: fp32, tf32 or bf16 (tensor/precision.h)
};

/// The rows of PredictOptions: every flag of `strand predict`.
const std::vector<app::ConfigKey>& predict_keys();

/// Scores the samples and writes one line per sample: name, the window scored (chrom, start,
/// end; for records the record's name and the window's place in it), the labels when the input
/// has them (label_<task>), then one score per model task, named by the run's task names. The
/// samples are: the intervals or records of --fasta + --intervals; every record of --fasta alone
/// (each of the model's length, or longer with center); windows every `step` bases across each
/// of `tiles`; else the run's simulated test split. A bedGraph (tiles only) gives each window's
/// score to its central `step` bases. The file is written atomically; with out "-" the table
/// goes to `out` and messages to `err` (else messages go to `out`). Returns the number of
/// samples. Throws ConfigError for a bad flag (naming it) or input, and Error when a score is not
/// finite (nothing is written then).
int64_t run_predict(const PredictOptions& options, std::ostream& out, std::ostream& err);

}  // namespace strand::cli
