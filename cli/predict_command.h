// `strand predict`: scores from a trained run (or checkpoint) for FASTA + interval/record files,
// a FASTA's records, tiles across genomic regions, or the simulated test split, written as a
// TSV or (tiles) a bedGraph.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/config_keys.h"
#include "data/intervals/intervals.h"

namespace strand::cli {

/// The settings of `strand predict`, set by its flags (predict_keys()).
struct PredictOptions {
  std::string model;   // a run directory or a checkpoint file
  std::string config;  // config.json to build the model from (default: the run's)
  std::string fasta;
  std::string intervals;  // intervals or a records label TSV; empty: see run_predict
  std::optional<data::IntervalFormat> format;  // default: the run's data format, else bed
  std::vector<int> label_columns;  // bed/narrowpeak columns whose labels are copied to the output
  std::vector<std::string> tiles;  // regions to tile ("chr1:1-1000000"), samtools syntax
  std::optional<int64_t> step;     // bases between tiles; default: the window
  bool center = false;             // FASTA records longer than the window: score the centre
  bool rc_average = false;         // average each score with the reverse complement's
  std::optional<int64_t> window;   // default: the run's input length; records: 0 = common length
  std::string out;                 // a TSV or bedGraph path, or "-" for standard output
  std::string out_format;          // tsv or bedgraph; default: bedgraph for .bedgraph/.bg
  std::string task;                // bedGraph of a multi-task model: the task, by name or index
  std::string output;              // a graph model's output; default: its first (B, T) output
  int64_t batch_size = 256;
  int64_t threads = 0;  // 0: every core
};

/// The rows of PredictOptions: every flag of `strand predict`.
const std::vector<ConfigKey>& predict_keys();

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
