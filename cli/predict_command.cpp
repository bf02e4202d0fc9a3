// Prediction over files or the simulated test split with a run's model and weights.
#include "cli/predict_command.h"

#include <fmt/format.h>
#include <omp.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <set>

#include "cli/data_builder.h"
#include "cli/model_builder.h"
#include "cli/run_config.h"
#include "cli/run_directory.h"
#include "data/text_fields.h"
#include "io/atomic_file.h"
#include "train/checkpoint.h"
#include "train/fit.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;

// The checkpoint and the config.json describing its model.
std::pair<fs::path, fs::path> locate(const PredictOptions& options) {
  const fs::path model(options.model);
  fs::path checkpoint, config;
  if (fs::is_directory(model)) {
    RunPaths run{model};
    checkpoint = fs::exists(run.best_checkpoint()) ? run.best_checkpoint() : run.last_checkpoint();
    config = run.config();
  } else if (fs::is_regular_file(model)) {
    checkpoint = model;
    // <run>/checkpoints/best.safetensors -> <run>/config.json
    config = model.parent_path().parent_path() / "config.json";
  } else {
    throw ConfigError(
        fmt::format("--model: '{}' is neither a run directory nor a checkpoint", options.model));
  }
  if (!options.config.empty()) config = options.config;
  if (!fs::exists(checkpoint)) {
    throw ConfigError(fmt::format("--model: checkpoint '{}' does not exist", checkpoint.string()));
  }
  if (!fs::exists(config)) {
    throw ConfigError(fmt::format("--model: no config '{}' to build the model from; pass --config",
                                  config.string()));
  }
  return {checkpoint, config};
}

// How many lines refuse_intervals_as_records() looks at: enough to see contigs repeat.
constexpr int64_t kSniffLines = 1000;

// `--format records` reads NAME<TAB>LABEL... lines, one per whole FASTA record. A BED file read
// that way scores whole contigs and takes start and end as labels, so a file that looks like
// intervals is refused: a `track`/`browser` line, or every line CONTIG<TAB>START<TAB>END with
// integers 0 <= START < END, where contigs repeat or an interval spans more than one base (a
// records file with two 0/1 label columns has neither).
void refuse_intervals_as_records(const std::string& path) {
  data::LineReader in(path);
  std::string line;
  std::set<std::string, std::less<>> contigs;
  bool all_intervals = true, interval_evidence = false;
  int64_t lines = 0;
  std::string example;
  int64_t example_line = 0;
  while (lines < kSniffLines && in.next(line)) {
    if (data::is_blank(line)) continue;
    ++lines;
    const auto keyword = [&line](std::string_view word) {
      return line.starts_with(word) &&
             (line.size() == word.size() || line[word.size()] == ' ' || line[word.size()] == '\t');
    };
    if (keyword("track") || keyword("browser")) {
      interval_evidence = true;
      continue;
    }
    const std::vector<std::string_view> fields = data::split_tabs(line);
    const std::string_view first = fields[0];
    std::optional<int64_t> start, end;
    if (fields.size() >= 3) {
      start = data::parse_int(fields[1]);
      end = data::parse_int(fields[2]);
    }
    if (!start || !end || *start < 0 || *start >= *end) {
      all_intervals = false;
      break;
    }
    if (!contigs.emplace(first).second || *end - *start > 1) interval_evidence = true;
    if (example.empty()) {
      example = line.substr(0, 80);
      example_line = in.line_number();
    }
  }
  if (lines == 0 || !all_intervals || !interval_evidence) return;
  throw ConfigError(fmt::format(
      "--format records: '{}' looks like an interval file (BED), not a NAME<TAB>LABEL table: "
      "line {} '{}' reads as contig, start, end; records would score whole contigs and take the "
      "coordinates as labels. Pass --format bed (or narrowpeak, dream) for interval files",
      path, example_line, example));
}

// The TSV goes to standard output with `--out -`; messages then go to the error stream.
std::ostream& message_stream(const PredictOptions& options, std::ostream& out, std::ostream& err) {
  return options.out == "-" ? err : out;
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
  std::ostream& log = message_stream(options, out, err);
  const auto [checkpoint, config_path] = locate(options);
  RunConfig config = load_config_file(config_path);
  if (options.threads > 0) config.threads = options.threads;
  omp_set_num_threads(resolved_threads(config));

  // The model's input length: the run's, unless a window is given for the new files.
  const bool from_files = !options.fasta.empty() || !options.intervals.empty();
  DataSplit split;
  if (from_files) {
    if (options.fasta.empty() || options.intervals.empty()) {
      throw ConfigError("predict: --fasta and --intervals go together");
    }
    std::string format = options.format;
    int64_t window = options.window.value_or(0);
    if (config.data.source == "files") {
      if (format.empty()) format = config.data.files.format;
      if (!options.window) window = config.data.files.window;
    } else if (!options.window) {
      window = config.data.simulated.length;
    }
    if (format.empty()) format = "bed";
    if (format == "records") {
      refuse_intervals_as_records(options.intervals);
    } else if (window == 0) {
      throw ConfigError(fmt::format(
          "--window: {} intervals need a window of at least 1 base (0 is for records)", format));
    }
    split = build_files_split("predict", options.fasta, options.intervals, format, window);
  } else {
    if (config.data.source != "simulated") {
      throw ConfigError(
          "predict: give --fasta and --intervals (the run did not use simulated data)");
    }
    RunData data = build_run_data(config);
    split = std::move(*data.test);
  }
  const int64_t length = split.source->length();
  manual_seed(config.seed);
  std::shared_ptr<Sequential> model = build_model(config.model, length);
  try {
    train::load_checkpoint(checkpoint, *model);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("--model: {}", error.what()));
  }
  log << fmt::format("predict: {} samples of {} bp with {}\n", split.source->size(), length,
                     checkpoint.string());

  std::unique_ptr<data::DataLoader> loader = make_eval_loader(split, options.batch_size);
  const train::Predictions predictions = train::predict(*model, *loader);
  const int64_t targets = predictions.num_targets;
  // A non-finite score means broken weights or an overflowing model: no table beats a wrong one.
  for (size_t k = 0; k < predictions.scores.size(); ++k) {
    const float score = predictions.scores[k];
    if (std::isfinite(score)) continue;
    const int64_t sample = predictions.sample_index[k / static_cast<size_t>(targets)];
    throw Error(fmt::format(
        "predict: the model scored sample {} ('{}') as {}; the checkpoint '{}' gives no usable "
        "scores (nothing written)",
        sample, split.sample_names[static_cast<size_t>(sample)], score, checkpoint.string()));
  }
  const int64_t label_count = split.source->num_targets();
  std::string text = "name";
  for (int64_t t = 0; t < label_count; ++t) {
    text += label_count == 1 ? "\tlabel" : fmt::format("\tlabel_{}", t);
  }
  for (int64_t t = 0; t < targets; ++t) {
    text += targets == 1 ? "\tscore" : fmt::format("\tscore_{}", t);
  }
  text += "\n";
  // Rows come back in plan order; a sample seen twice (wrap-around padding) is written once.
  const int64_t n = split.source->size();
  std::vector<int64_t> row_of(static_cast<size_t>(n), -1);
  for (size_t r = 0; r < predictions.sample_index.size(); ++r) {
    int64_t& slot = row_of[static_cast<size_t>(predictions.sample_index[r])];
    if (slot < 0) slot = static_cast<int64_t>(r);
  }
  std::vector<float> labels(static_cast<size_t>(label_count));
  std::vector<uint8_t> mask(static_cast<size_t>(label_count));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = row_of[static_cast<size_t>(i)];
    if (r < 0) throw Error(fmt::format("predict: sample {} got no prediction", i));
    split.source->labels(i, labels.data(), mask.data());
    text += split.sample_names[static_cast<size_t>(i)];
    for (int64_t t = 0; t < label_count; ++t) {
      text += mask[static_cast<size_t>(t)] ? fmt::format("\t{}", labels[static_cast<size_t>(t)])
                                           : std::string("\tNA");
    }
    for (int64_t t = 0; t < targets; ++t) {
      text += fmt::format("\t{}", predictions.scores[static_cast<size_t>(r * targets + t)]);
    }
    text += "\n";
  }
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
