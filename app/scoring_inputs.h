// The sequences a trained model scores, as `strand predict`, `strand explain` and
// `strand marginalize` take them: a FASTA's records (each of the model's length, or its centre
// with `center`), intervals of a genome FASTA (BED, narrowPeak, DREAM or records TSV; labels
// copied when the file has them), windows tiling regions (`--tile chr1:1-1000000 --step 50`),
// or, with none of these, the run's simulated test split. The flags that name them are rows of
// one table (scoring_keys()), shared by those commands.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/config_keys.h"
#include "app/data_builder.h"
#include "app/run_config.h"
#include "data/intervals/intervals.h"
#include "data/loader/loader_config.h"

namespace strand::app {

/// The input flags shared by the scoring commands.
struct ScoringInputs {
  std::string command = "predict";  ///< names the command in messages
  std::string fasta;
  std::string intervals;                       ///< intervals or a records label TSV
  std::optional<data::IntervalFormat> format;  ///< default: the run's data format, else bed
  std::vector<int> label_columns;              ///< bed/narrowpeak columns whose labels are copied
  std::vector<std::string> tiles;  ///< regions to tile ("chr1:1-1000000"), samtools syntax
  std::optional<int64_t> step;     ///< bases between tiles; default: the window
  bool center = false;             ///< FASTA records longer than the window: their centre
  std::optional<int64_t> window;   ///< default: the run's input length; records: 0 = common length
};

/// Checks the combinations of input flags that no single flag's row states (--tile takes
/// --fasta and no --intervals, --step goes with --tile, --center with --fasta alone,
/// --label-columns with --intervals); throws ConfigError naming the flag.
void check_scoring_inputs(const ScoringInputs& inputs);

/// The samples `inputs` name for a model trained with `config` (see the file comment). Throws
/// ConfigError naming the flag for a bad combination or file. FASTA records (--fasta alone) are
/// streamed (data::StreamedRecordSource) and their sample_names left empty: name the samples
/// with SampleWindows (app/sample_windows.h).
DataSplit build_scoring_split(const ScoringInputs& inputs, const RunConfig& config);

/// --window's rule: >= 1, or 0 for records (their common length).
void refuse_negative_windows(const std::string& name, const ConfigValue& value);

/// The rows of a scoring command's model and input flags (--model, --config, --no-bias, --fasta,
/// --intervals, --format, --label-columns, --tile, --step, --center, --window, --threads), bound
/// to Options' members `model`, `config`, `with_bias`, `inputs` (a ScoringInputs) and `threads`.
/// `verb` says what the command does to a sequence ("score", "explain"). The --no-bias row of a
/// command that opens a trained model, bound to Options' `with_bias` (true unless --no-bias).
template <typename Options>
ConfigKey no_bias_key(const std::vector<std::string>& commands) {
  return {.key = "bias",
          .field = field<Options>([](auto& o) -> auto& { return o.with_bias; }),
          .flag = "--no-bias",
          .help =
              "Use a bias-factorized model (ChromBPNet, trained with --bias-model) with its "
              "bias model; false: its accessibility model alone, without the enzyme's bias "
              "(chrombpnet_nobias)",
          .commands = commands};
}

template <typename Options>
std::vector<ConfigKey> scoring_keys(const std::string& command, const std::string& verb) {
  const std::vector<std::string> commands = {command};
  return {
      {.key = "model",
       .field = field<Options>([](auto& o) -> auto& { return o.model; }),
       .flag = "--model",
       .help = "Run directory or checkpoint file",
       .commands = commands,
       .required = true},
      {.key = "config",
       .field = field<Options>([](auto& o) -> auto& { return o.config; }),
       .flag = "--config",
       .help = "Config to build the model from (default: the run's config.json)",
       .commands = commands},
      no_bias_key<Options>(commands),
      {.key = "fasta",
       .field = field<Options>([](auto& o) -> auto& { return o.inputs.fasta; }),
       .flag = "--fasta",
       .help = "FASTA: the genome of --intervals or --tile, or alone: " + verb +
               " every record (omit: the simulated test split)",
       .commands = commands},
      {.key = "intervals",
       .field = field<Options>([](auto& o) -> auto& { return o.inputs.intervals; }),
       .flag = "--intervals",
       .help = "Intervals (bed incl. BED3/BED6, narrowpeak, dream) or records label TSV",
       .commands = commands},
      {.key = "format",
       .field = enum_field<Options>(
           [](auto& o) -> auto& { return o.inputs.format; }, data::interval_format_names(),
           data::parse_interval_format),
       .flag = "--format",
       .help = "Format of --intervals",
       .commands = commands,
       .unset = "the run's"},
      {.key = "label-columns",
       .field = columns_field<Options>(
           [](auto& o) -> auto& { return o.inputs.label_columns; }, 4),
       .flag = "--label-columns",
       .help = "bed/narrowpeak label columns copied to the output, 4-167 or 4,6 (default: the "
               "run's, else bed 4 / narrowpeak 7, when the first interval has labels there)",
       .commands = commands},
      {.key = "tile",
       .field = field<Options>([](auto& o) -> auto& { return o.inputs.tiles; }),
       .flag = "--tile",
       .help = "Windows across REGION to " + verb +
               " (chr1, chr1:1-1000000: 1-based inclusive as in samtools); repeat for several "
               "regions",
       .commands = commands},
      {.key = "step",
       .field = field<Options>([](auto& o) -> auto& { return o.inputs.step; }),
       .range = IntRange{1, data::kMaxSequenceLength},
       .flag = "--step",
       .help = "Bases between --tile windows, 1 to the window",
       .commands = commands,
       .unset = "the window"},
      {.key = "center",
       .field = field<Options>([](auto& o) -> auto& { return o.inputs.center; }),
       .flag = "--center",
       .help = "--fasta alone: " + verb +
               " the central window of records longer than the model's input (default: such "
               "records are an error)",
       .commands = commands},
      {.key = "window",
       .field = field<Options>([](auto& o) -> auto& { return o.inputs.window; }),
       .range = data::loader_ranges::kRecordsWindow,
       .range_note = "records: 0 for their common length",
       .flag = "--window",
       .help = "Bases per sample, >= 1; records: 0 = their common length",
       .commands = commands,
       .unset = "the run's",
       .rule = refuse_negative_windows},
      {.key = "threads",
       .field = field<Options>([](auto& o) -> auto& { return o.threads; }),
       .range = IntRange{.lo = 0, .up_to_thread_cap = true},
       .range_note = "0: OMP_NUM_THREADS, else all cores",
       .flag = "--threads",
       .help = "CPU threads",
       .commands = commands},
  };
}

}  // namespace strand::app
