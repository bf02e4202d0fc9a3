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

#include "cli/data_builder.h"
#include "cli/model_builder.h"
#include "cli/run_config.h"
#include "cli/run_directory.h"
#include "cli/scoring_inputs.h"
#include "cli/trained_model.h"
#include "data/data_error.h"
#include "data/interval_source.h"
#include "data/labels.h"
#include "data/list_syntax.h"
#include "data/scoring_windows.h"
#include "data/text_fields.h"
#include "data/window.h"
#include "io/atomic_file.h"
#include "train/checkpoint.h"
#include "train/fit.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;

// The TSV goes to standard output with `--out -`; messages then go to the error stream.
std::ostream& message_stream(const PredictOptions& options, std::ostream& out, std::ostream& err) {
  return options.out == "-" ? err : out;
}

// predict's input flags as the shared scoring inputs.
ScoringInputs scoring_inputs(const PredictOptions& options) {
  ScoringInputs inputs;
  inputs.fasta = options.fasta;
  inputs.intervals = options.intervals;
  inputs.format = options.format;
  inputs.label_columns = options.label_columns;
  inputs.tiles = options.tiles;
  inputs.step = options.step;
  inputs.center = options.center;
  inputs.window = options.window;
  return inputs;
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

// The mean score of each sample over its rows (N, T): one row per sample, two with both strands
// (the forward and the reverse complement, as DeepSEA averages them).
std::vector<float> scores_per_sample(const train::Predictions& predictions, int64_t samples,
                                     const DataSplit& split, const std::string& checkpoint) {
  const int64_t targets = predictions.num_targets;
  std::vector<double> sums(static_cast<size_t>(samples * targets), 0.0);
  std::vector<int64_t> rows(static_cast<size_t>(samples), 0);
  for (size_t r = 0; r < predictions.sample_index.size(); ++r) {
    const int64_t sample = predictions.sample_index[r];
    for (int64_t t = 0; t < targets; ++t) {
      const float score = predictions.scores[r * static_cast<size_t>(targets) + t];
      // A non-finite score means broken weights or an overflowing model: no table beats a wrong
      // one.
      if (!std::isfinite(score)) {
        throw Error(fmt::format(
            "predict: the model scored sample {} ('{}') as {}; the checkpoint '{}' gives no "
            "usable scores (nothing written)",
            sample, split.sample_names[static_cast<size_t>(sample)], score, checkpoint));
      }
      sums[static_cast<size_t>(sample * targets + t)] += score;
    }
    ++rows[static_cast<size_t>(sample)];
  }
  std::vector<float> scores(sums.size());
  for (int64_t i = 0; i < samples; ++i) {
    if (rows[static_cast<size_t>(i)] == 0) {
      throw Error(fmt::format("predict: sample {} got no prediction", i));
    }
    for (int64_t t = 0; t < targets; ++t) {
      const auto k = static_cast<size_t>(i * targets + t);
      scores[k] = static_cast<float>(sums[k] / static_cast<double>(rows[static_cast<size_t>(i)]));
    }
  }
  return scores;
}

// The table: name, window, labels (label_<task>), one score per model task.
std::string tsv_table(const DataSplit& split, const std::vector<float>& scores,
                      const std::vector<std::string>& tasks) {
  const data::SequenceSource& source = *split.source;
  const int64_t label_count = source.num_targets();
  const std::vector<std::string> label_names = source.task_names();
  const auto targets = static_cast<int64_t>(tasks.size());
  std::string text = "name\tchrom\tstart\tend";
  for (const std::string& name : label_names) text += "\tlabel_" + name;
  for (const std::string& name : tasks) text += "\t" + name;
  text += "\n";
  std::vector<float> labels(static_cast<size_t>(label_count));
  std::vector<uint8_t> mask(static_cast<size_t>(label_count));
  for (int64_t i = 0; i < source.size(); ++i) {
    const data::Interval window = scored_window(split, i);
    text += fmt::format("{}\t{}\t{}\t{}", split.sample_names[static_cast<size_t>(i)], window.contig,
                        window.start, window.end);
    source.labels(i, labels.data(), mask.data());
    for (int64_t t = 0; t < label_count; ++t) {
      text += mask[static_cast<size_t>(t)] ? fmt::format("\t{}", labels[static_cast<size_t>(t)])
                                           : std::string("\tNA");
    }
    for (int64_t t = 0; t < targets; ++t) {
      text += fmt::format("\t{}", scores[static_cast<size_t>(i * targets + t)]);
    }
    text += "\n";
  }
  return text;
}

// bedGraph of tiles: each window's score on its central `step` bases; windows every `step`
// bases make these blocks adjacent, sorted and non-overlapping.
std::string bedgraph_table(const DataSplit& split, const std::vector<float>& scores,
                           int64_t targets, int64_t task, int64_t step) {
  const int64_t length = split.source->length();
  std::string text;
  for (int64_t i = 0; i < split.source->size(); ++i) {
    const data::Interval window = scored_window(split, i);
    const int64_t start = window.start + (length - step) / 2;
    text += fmt::format("{}\t{}\t{}\t{}\n", window.contig, start, start + step,
                        scores[static_cast<size_t>(i * targets + task)]);
  }
  return text;
}

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

}  // namespace

int64_t run_predict(const PredictOptions& options, std::ostream& out, std::ostream& err) {
  if (options.out.empty()) throw ConfigError("--out: an output TSV path (or -) is required");
  if (options.window && *options.window < 0) {
    throw ConfigError(fmt::format(
        "--window: must be >= 1 (records: 0 for their common length), got {}", *options.window));
  }
  if (options.batch_size < 1) {
    throw ConfigError(fmt::format("--batch-size: must be >= 1, got {}", options.batch_size));
  }
  if (options.threads < 0) {
    throw ConfigError(
        fmt::format("--threads: must be >= 0 (0 = every core), got {}", options.threads));
  }
  if (options.step && *options.step < 1) {
    throw ConfigError(fmt::format("--step: must be >= 1, got {}", *options.step));
  }
  if (options.step && options.tiles.empty()) throw ConfigError("--step: goes with --tile");
  std::string out_format = options.out_format;
  if (out_format.empty()) {
    const std::string name = lower(options.out);
    out_format = name.ends_with(".bedgraph") || name.ends_with(".bg") ? "bedgraph" : "tsv";
  }
  if (out_format != "tsv" && out_format != "bedgraph") {
    throw ConfigError(
        fmt::format("--out-format: '{}' is not one of tsv, bedgraph", options.out_format));
  }
  if (!options.task.empty() && out_format != "bedgraph") {
    throw ConfigError("--task: chooses the task of a bedGraph (--out-format bedgraph)");
  }
  if (out_format == "bedgraph" && options.tiles.empty()) {
    throw ConfigError(
        "--out-format bedgraph: a bedGraph needs non-overlapping windows: give --tile REGION "
        "(or write a TSV)");
  }
  std::ostream& log = message_stream(options, out, err);
  const TrainedModelFiles files = locate_trained_model(options.model, options.config);
  RunConfig config = load_config_file(files.config);
  if (options.threads > 0) config.threads = options.threads;
  omp_set_num_threads(resolved_threads(config));

  const DataSplit split = build_scoring_split(scoring_inputs(options), config);
  const int64_t length = split.source->length();
  const TrainedModel trained = load_trained_model(files, config, length);
  const DataDimensions& dimensions = trained.dimensions;
  if (dimensions.length != length) {
    throw ConfigError(fmt::format(
        "predict: the model was trained on {} bp windows, the input has {} (give --window {})",
        dimensions.length, length, dimensions.length));
  }
  const std::vector<std::string>& recorded_tasks = trained.task_names;
  // A bedGraph's task is checked against the run's names before the (long) prediction.
  if (out_format == "bedgraph" && !recorded_tasks.empty()) bedgraph_task(options, recorded_tasks);
  Model* model = trained.model.get();
  const size_t output = predicted_output(*model, dimensions, options.output);
  log << fmt::format("predict: {} samples of {} bp with {}{}\n", split.source->size(), length,
                     trained.files.checkpoint.string(),
                     options.rc_average ? " (averaged with the reverse complement)" : "");

  std::unique_ptr<data::DataLoader> loader =
      prediction_loader(split, options.batch_size, options.rc_average);
  const train::Predictions predictions = train::predict(*model, *loader, output);
  const int64_t n = split.source->size();
  const std::vector<float> scores =
      scores_per_sample(predictions, n, split, trained.files.checkpoint.string());
  std::vector<std::string> tasks = recorded_tasks;
  if (static_cast<int64_t>(tasks.size()) != predictions.num_targets) {
    // Not the labels' columns (another output, or names that cannot be read): numbered.
    tasks = data::SequenceSource::default_task_names(predictions.num_targets);
  }
  const std::string text =
      out_format == "bedgraph"
          ? bedgraph_table(split, scores, predictions.num_targets, bedgraph_task(options, tasks),
                           options.step.value_or(length))
          : tsv_table(split, scores, tasks);
  if (options.out == "-") {
    out << text << std::flush;
    if (!out) throw Error("--out -: writing the table to standard output failed");
    log << fmt::format("wrote {} rows to standard output\n", n);
  } else {
    io::write_file_atomically(options.out, text);
    log << fmt::format("wrote {} ({} rows)\n", options.out, n);
  }
  return n;
}

}  // namespace strand::cli
