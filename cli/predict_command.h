// `strand predict`: scores from a trained run (or checkpoint) for FASTA + interval/record files,
// or for the simulated test split, written as a TSV.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace strand::cli {

struct PredictOptions {
  std::string model;   // a run directory or a checkpoint file
  std::string config;  // config.json to build the model from (default: the run's)
  std::string fasta;
  std::string intervals;
  std::string format;             // default: the run's data format, else "bed"
  std::optional<int64_t> window;  // default: the run's input length; records: 0 = common length
  std::string out;                // a TSV path, or "-" for standard output
  int64_t batch_size = 256;
  int64_t threads = 0;  // 0: every core
};

/// Writes one line per sample: name (record name or chrom:start-end), its label(s), then the
/// model's score(s); returns the number of samples. The file is written atomically; with
/// out "-" the table goes to `out` and messages to `err` (else messages go to `out`). Throws
/// ConfigError for a bad flag (naming it), an interval file given as records, and Error when a
/// score is not finite (nothing is written then).
int64_t run_predict(const PredictOptions& options, std::ostream& out, std::ostream& err);

}  // namespace strand::cli
