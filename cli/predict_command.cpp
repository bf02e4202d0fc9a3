// Prediction with a run's model and weights over files, FASTA records, tiled regions or the
// simulated test split; TSV and bedGraph tables.
#include "cli/predict_command.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>

#include "app/command_paths.h"
#include "app/data_builder.h"
#include "app/model_builder.h"
#include "app/pass_options.h"
#include "app/run_config.h"
#include "app/run_directory.h"
#include "app/trained_model.h"
#include "app/usable_device.h"
#include "cli/prediction_table.h"
#include "core/stop_signal.h"
#include "data/data_error.h"
#include "data/intervals/scoring_windows.h"
#include "data/labels.h"
#include "data/list_syntax.h"
#include "data/signals/signal_tracks.h"
#include "data/sources/interval_source.h"
#include "data/text_fields.h"
#include "data/window.h"
#include "io/atomic_file.h"
#include "tensor/precision.h"
#include "train/checkpoint.h"
#include "train/fit.h"
#include "train/reverse_complement_average.h"

namespace strand::cli {

using app::build_scoring_split;
using app::check_input_file;
using app::check_output_file;
using app::check_scoring_inputs;
using app::ConfigError;
using app::ConfigKey;
using app::ConfigValue;
using app::DataDimensions;
using app::DataSplit;
using app::field;
using app::find_model_output;
using app::input_shapes;
using app::load_config_file;
using app::load_trained_model;
using app::locate_trained_model;
using app::make_eval_loader;
using app::output_reverse_tracks;
using app::refuse_overwriting_input;
using app::resolved_threads;
using app::RunConfig;
using app::scoring_keys;
using app::ScoringInputs;
using app::TrainedModel;
using app::TrainedModelFiles;
using app::usable_device;
using app::usable_precision;
namespace {

namespace fs = std::filesystem;

// The TSV goes to standard output with `--out -`; messages then go to the error stream.
std::ostream& message_stream(const PredictOptions& options, std::ostream& out, std::ostream& err) {
  return options.out == "-" ? err : out;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The loader predictions read: plan order, both strands with --rc-average.
std::unique_ptr<data::DataLoader> prediction_loader(const DataSplit& split, int64_t batch_size,
                                                    bool both_strands) {
  if (!both_strands) return make_eval_loader(split, batch_size);
  data::LoaderOptions options;
  options.sampler.batch_size = batch_size;
  options.sampler.shuffle = false;
  options.sampler.both_strands = true;
  return std::make_unique<data::DataLoader>(split.source, std::move(options));
}

// Each sample's score, handed to the table in sample order: its row, or with both strands its
// two rows (the forward, then the reverse complement, as the sampler plans them) averaged by
// train::average_with_reverse_complement (`reverse`: the column each column pairs with). Holds
// one sample at a time.
class SampleAverager {
 public:
  SampleAverager(int64_t samples, bool both_strands, const std::vector<int64_t>& reverse,
                 PredictionTable& table, std::string checkpoint)
      : samples_(samples),
        rows_per_sample_(both_strands ? 2 : 1),
        reverse_(reverse),
        table_(table),
        checkpoint_(std::move(checkpoint)),
        forward_(reverse.size()) {}

  void add(const train::PredictionBatch& batch) {
    const auto columns = static_cast<int64_t>(forward_.size());
    for (int64_t r = 0; r < batch.rows; ++r) {
      const int64_t sample = batch.sample_index[r];
      const float* scores = batch.scores + r * batch.targets;
      check_finite(sample, scores, columns);
      if (rows_ == 0) {
        start(sample);
        std::copy(scores, scores + columns, forward_.begin());
      } else if (sample != sample_) {
        throw Error(fmt::format("predict: sample {} came without its reverse complement", sample_));
      } else {
        // data::SamplerOptions::both_strands: the reverse complement's row.
        train::average_with_reverse_complement(forward_.data(), scores, 1, columns, 1, reverse_);
      }
      if (++rows_ == rows_per_sample_) {
        table_.add(sample_, forward_.data());
        ++emitted_;
        rows_ = 0;
      }
    }
  }

  // Every sample must have had its rows.
  void finish() {
    if (rows_ != 0 || emitted_ != samples_) {
      throw Error(fmt::format("predict: sample {} got no prediction", emitted_));
    }
  }

 private:
  // A non-finite score means broken weights or an overflowing model: no table beats a wrong one.
  void check_finite(int64_t sample, const float* scores, int64_t columns) const {
    for (int64_t t = 0; t < columns; ++t) {
      if (!std::isfinite(scores[t])) {
        throw Error(fmt::format(
            "predict: the model scored sample {} ('{}') as {}; the checkpoint '{}' gives no "
            "usable scores (nothing written)",
            sample, table_.name(sample), scores[t], checkpoint_));
      }
    }
  }

  void start(int64_t sample) {
    if (sample != emitted_) {
      throw Error(sample > emitted_ ? fmt::format("predict: sample {} got no prediction", emitted_)
                                    : fmt::format("predict: sample {} came again after sample {}",
                                                  sample, emitted_ - 1));
    }
    sample_ = sample;
  }

  int64_t samples_;
  int64_t rows_per_sample_;
  const std::vector<int64_t>& reverse_;
  PredictionTable& table_;
  std::string checkpoint_;
  std::vector<float> forward_;  // (T) the current sample's forward row, then its average
  int64_t sample_ = -1;         // the sample being read
  int64_t rows_ = 0;            // its rows so far
  int64_t emitted_ = 0;         // samples handed to the table
};

// The task a bedGraph shows: --task by name or index; the only one by default.
int64_t bedgraph_task(const PredictOptions& options, const std::vector<std::string>& tasks) {
  if (options.task.empty()) {
    if (tasks.size() == 1) return 0;
    throw ConfigError(fmt::format(
        "--task: the model has {} tasks ({}); a bedGraph shows one: pass --task NAME or INDEX",
        tasks.size(), fmt::join(tasks, ", ")));
  }
  const auto named = std::find(tasks.begin(), tasks.end(), options.task);
  if (named != tasks.end()) return named - tasks.begin();
  const auto index = data::parse_int(options.task);
  if (index && *index >= 0 && *index < static_cast<int64_t>(tasks.size())) return *index;
  throw ConfigError(fmt::format("--task: '{}' is neither a task name ({}) nor an index in [0, {})",
                                options.task, fmt::join(tasks, ", "), tasks.size()));
}

// The output predict writes (find_model_output()), which must give one value per task and
// window ((B, T): a profile's (B, S, L) is not a table of scores). Throws naming the outputs.
size_t predicted_output(const Model& model, const DataDimensions& data, const std::string& name) {
  const size_t index = find_model_output(model, data, name);
  const std::vector<std::string> names = model.output_names();
  const std::vector<Shape> shapes = model.output_shapes(input_shapes(data));
  if (shapes[index].size() != 1) {
    throw ConfigError(fmt::format(
        "predict: output '{}' gives ({}) per window; the table holds outputs of one value per "
        "column (the model's outputs: {})",
        names[index], fmt::join(shapes[index], ", "), fmt::join(names, ", ")));
  }
  return index;
}

// The checks of the flags that no single flag's range or words state.
void check_predict_flags(const PredictOptions& options, const std::string& out_format) {
  if (options.out.empty()) throw ConfigError("--out: an output TSV path (or -) is required");
  // Before the work: a genome's tiles take hours to score.
  if (options.out != "-") check_output_file(options.out, "--out");
  check_input_file(options.inputs.fasta, "--fasta");
  check_input_file(options.inputs.intervals, "--intervals");
  check_input_file(options.config, "--config");
  if (options.out != "-") {
    refuse_overwriting_input(options.out, "--out",
                             {{options.inputs.fasta, "--fasta"},
                              {options.inputs.intervals, "--intervals"},
                              {options.config, "--config"},
                              {options.model, "--model"}});
  }
  check_scoring_inputs(options.inputs);
  app::PassOptions{.batch_size = options.batch_size}.validate();
  if (!options.task.empty() && out_format != "bedgraph") {
    throw ConfigError("--task: chooses the task of a bedGraph (--out-format bedgraph)");
  }
  if (out_format == "bedgraph" && options.inputs.tiles.empty()) {
    throw ConfigError(
        "--out-format bedgraph: a bedGraph needs non-overlapping windows: give --tile REGION "
        "(or write a TSV)");
  }
}

// The table's format: --out-format, else bedgraph for a .bedgraph or .bg file, else tsv.
std::string output_format(const PredictOptions& options) {
  if (!options.out_format.empty()) return options.out_format;
  const std::string name = lower(options.out);
  return name.ends_with(".bedgraph") || name.ends_with(".bg") ? "bedgraph" : "tsv";
}

// The column each score column of a reverse complement's row is averaged with (itself, unless
// --rc-average swaps stranded tracks): known before the work.
std::vector<int64_t> reverse_map(const PredictOptions& options, const TrainedModel& trained,
                                 size_t output) {
  const Model& model = *trained.model;
  const int64_t columns = model.output_shapes(input_shapes(trained.dimensions))[output][0];
  if (options.rc_average) return output_reverse_tracks(trained, output, "--rc-average");
  std::vector<int64_t> reverse(static_cast<size_t>(columns));
  for (int64_t t = 0; t < columns; ++t) reverse[static_cast<size_t>(t)] = t;
  return reverse;
}

// Scores the model's output `output` for every sample of `split` (averaged over both strands
// with --rc-average), checked finite, into `table` as they come.
void predict_into(const PredictOptions& options, const TrainedModel& trained, size_t output,
                  const DataSplit& split, const std::vector<int64_t>& reverse,
                  PredictionTable& table) {
  Model& model = *trained.model;
  std::unique_ptr<data::DataLoader> loader =
      prediction_loader(split, options.batch_size, options.rc_average);
  SampleAverager averager(split.source->size(), options.rc_average, reverse, table,
                          trained.files.checkpoint.string());
  train::predict_batches(model, *loader, output, [&](const train::PredictionBatch& batch) {
    throw_if_stop_requested();  // SIGINT/SIGTERM: the table's temporary file goes unpublished
    if (static_cast<int64_t>(reverse.size()) != batch.targets) {
      throw Error(fmt::format("predict: output '{}' gave {} values per sample, its shape says {}",
                              model.output_names()[output], batch.targets, reverse.size()));
    }
    averager.add(batch);
  });
  averager.finish();
}

// --out-format: tsv or bedgraph (a ConfigError, as the other checks of predict's values).
void refuse_other_output_formats(const std::string& name, const ConfigValue& value) {
  const std::string& word = std::get<std::string>(value);
  if (word != "tsv" && word != "bedgraph") {
    throw ConfigError(fmt::format("{}: '{}' is not one of tsv, bedgraph", name, word));
  }
}

}  // namespace

const std::vector<ConfigKey>& predict_keys() {
  const std::vector<std::string> predict = {"predict"};
  static const std::vector<ConfigKey> keys = [&predict] {
    std::vector<ConfigKey> rows = scoring_keys<PredictOptions>("predict", "score");
    std::vector<ConfigKey> own = {
        {.key = "rc-average",
         .field = field<PredictOptions>([](auto& o) -> auto& { return o.rc_average; }),
         .flag = "--rc-average",
         .help = "Average each score with the reverse complement's (as DeepSEA)",
         .commands = predict},
        {.key = "out-format",
         .field = field<PredictOptions>([](auto& o) -> auto& { return o.out_format; }),
         .flag = "--out-format",
         .help = "tsv or bedgraph (--tile only: each window's score on its central --step bases)",
         .commands = predict,
         .unset = "bedgraph when --out ends in .bedgraph or .bg, else tsv",
         .rule = refuse_other_output_formats},
        {.key = "task",
         .field = field<PredictOptions>([](auto& o) -> auto& { return o.task; }),
         .flag = "--task",
         .help = "bedGraph of a multi-task model: the task to write, by name or index",
         .commands = predict},
        {.key = "output",
         .field = field<PredictOptions>([](auto& o) -> auto& { return o.output; }),
         .flag = "--output",
         .help = "A graph model's output to write (default: its first with one value per task, "
                 "e.g. BPNet's counts)",
         .commands = predict},
        {.key = "out",
         .field = field<PredictOptions>([](auto& o) -> auto& { return o.out; }),
         .flag = "--out",
         .help = "Output TSV or bedGraph, or - for standard output",
         .commands = predict,
         .required = true},
        {.key = "batch-size",
         .field = field<PredictOptions>([](auto& o) -> auto& { return o.batch_size; }),
         .range = data::loader_ranges::kBatchSize,
         .flag = "--batch-size",
         .help = "Batch size",
         .commands = predict},
        {.key = "device",
         .field = field<PredictOptions>([](auto& o) -> auto& { return o.device; }),
         .flag = "--device",
         .help = "Where the model runs: cpu or cuda[:N]; cuda fails clearly where unsupported",
         .commands = predict},
        {.key = "precision",
         .field = field<PredictOptions>([](auto& o) -> auto& { return o.precision; }),
         .choices = {"fp32", "tf32", "bf16"},
         .flag = "--precision",
         .help = "Float32 matrix math of the forward passes, as train's --precision: fp32 "
                 "(exact), tf32 (GPU; fp32 on the CPU) or bf16 (bfloat16 operands, float32 sums)",
         .commands = predict},
    };
    rows.insert(rows.end(), own.begin(), own.end());
    return rows;
  }();
  return keys;
}

int64_t run_predict(const PredictOptions& options, std::ostream& out, std::ostream& err) {
  const std::string out_format = output_format(options);
  check_predict_flags(options, out_format);
  const Device device = usable_device(options.device, "--device");
  const Float32PrecisionScope precision(usable_precision(options.precision, device, "--precision"));
  std::ostream& log = message_stream(options, out, err);
  const TrainedModelFiles files =
      locate_trained_model(options.model, options.config, !options.with_bias);
  RunConfig config = load_config_file(files.config);
  if (options.threads > 0) config.threads = options.threads;
  omp_set_num_threads(resolved_threads(config));
  ScoringInputs inputs = options.inputs;
  inputs.command = "predict";
  const DataSplit split = build_scoring_split(inputs, config);
  const int64_t length = split.source->length();
  const TrainedModel trained = load_trained_model(files, config, length);
  if (!device.is_cpu()) trained.model->to(device);
  if (trained.dimensions.length != length) {
    throw ConfigError(fmt::format(
        "predict: the model was trained on {} bp windows, the input has {} (give --window {})",
        trained.dimensions.length, length, trained.dimensions.length));
  }
  // A bedGraph's task is checked against the run's names before the (long) prediction.
  if (out_format == "bedgraph" && !trained.task_names.empty()) {
    bedgraph_task(options, trained.task_names);
  }
  const size_t output = predicted_output(*trained.model, trained.dimensions, options.output);
  const std::vector<int64_t> reverse = reverse_map(options, trained, output);
  log << fmt::format("predict: {} samples of {} bp with {}{}{}\n", split.source->size(), length,
                     trained.files.checkpoint.string(),
                     device.is_cpu() ? "" : " on " + options.device,
                     options.rc_average ? " (averaged with the reverse complement)" : "")
      << std::flush;  // the work starts: say so now, not when the buffer fills
  const auto columns = static_cast<int64_t>(reverse.size());
  PredictionTableOptions table_options;
  table_options.out = options.out;
  table_options.bedgraph = out_format == "bedgraph";
  table_options.tasks = trained.task_names;
  if (static_cast<int64_t>(table_options.tasks.size()) != columns) {
    // Not the labels' columns (another output, or names that cannot be read): numbered.
    table_options.tasks = data::SequenceSource::default_task_names(columns);
  }
  if (table_options.bedgraph) table_options.task = bedgraph_task(options, table_options.tasks);
  table_options.step = options.inputs.step.value_or(length);
  PredictionTable table(table_options, split);
  predict_into(options, trained, output, split, reverse, table);
  table.finish(out, log);
  return split.source->size();
}

}  // namespace strand::cli
