// The sequences a trained model scores, as `strand predict`, `strand explain` and
// `strand marginalize` take them: a FASTA's records (each of the model's length, or its centre
// with `center`), intervals of a genome FASTA (BED, narrowPeak, DREAM or records TSV; labels
// copied when the file has them), windows tiling regions (`--tile chr1:1-1000000 --step 50`),
// or, with none of these, the run's simulated test split.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/data_builder.h"
#include "cli/run_config.h"
#include "data/intervals.h"

namespace strand::cli {

/// The input flags shared by the scoring commands.
struct ScoringInputs {
  std::string command = "predict";  ///< names the command in messages
  std::string fasta;
  std::string intervals;           ///< intervals or a records label TSV
  std::string format;              ///< default: the run's data format, else "bed"
  std::string label_columns;       ///< bed/narrowpeak columns whose labels are copied
  std::vector<std::string> tiles;  ///< regions to tile ("chr1:1-1000000"), samtools syntax
  std::optional<int64_t> step;     ///< bases between tiles; default: the window
  bool center = false;             ///< FASTA records longer than the window: their centre
  std::optional<int64_t> window;   ///< default: the run's input length; records: 0 = common length
};

/// The samples `inputs` name for a model trained with `config` (see the file comment). Throws
/// ConfigError naming the flag for a bad combination or file.
DataSplit build_scoring_split(const ScoringInputs& inputs, const RunConfig& config);

/// The bases sample `index` covers: an interval source knows; a record or a simulated sequence
/// is named by itself, its window centred in it.
data::Interval scored_window(const DataSplit& split, int64_t index);

}  // namespace strand::cli
