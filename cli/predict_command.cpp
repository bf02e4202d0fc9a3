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

#include "cli/command_paths.h"
#include "cli/data_builder.h"
#include "cli/model_builder.h"
#include "cli/run_config.h"
#include "cli/run_directory.h"
#include "cli/trained_model.h"
#include "data/data_error.h"
#include "data/intervals/scoring_windows.h"
#include "data/labels.h"
#include "data/list_syntax.h"
#include "data/signals/signal_tracks.h"
#include "data/sources/interval_source.h"
#include "data/text_fields.h"
#include "data/window.h"
#include "io/atomic_file.h"
#include "train/checkpoint.h"
#include "train/fit.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;

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

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Whether the first interval line of a BED/narrowPeak file holds a label (a number or a
// missing marker) in every one of `columns`: a labelled file, whose labels go to the output.
bool first_interval_has_labels(const std::string& path, const std::vector<int>& columns) {
  data::LineReader in(path);
  std::string line;
  const auto keyword = [&line](std::string_view word) {
    return line.starts_with(word) &&
           (line.size() == word.size() || line[word.size()] == ' ' || line[word.size()] == '\t');
  };
  while (in.next(line)) {
    if (data::is_blank(line) || line.starts_with('#') || keyword("track") || keyword("browser")) {
      continue;
    }
    const std::vector<std::string_view> fields = data::split_tabs(line);
    return std::all_of(columns.begin(), columns.end(), [&fields](int c) {
      if (static_cast<size_t>(c) > fields.size()) return false;
      const std::string_view field = fields[static_cast<size_t>(c - 1)];
      return data::is_missing_label(field) || data::parse_float(field).has_value();
    });
  }
  return false;
}

// --fasta + --intervals: labels are copied when the file has them (see the --help).
DataSplit interval_file_split(const PredictOptions& options, const RunConfig& config,
                              data::IntervalFormat format, int64_t window) {
  data::LoaderConfig loader;
  loader.fasta = options.fasta;
  loader.intervals = options.intervals;
  loader.format = format;
  loader.window = window;
  loader.labels = {data::LabelKind::kReal, false};
  const bool bed = format == data::IntervalFormat::kBed;
  if (bed || format == data::IntervalFormat::kNarrowPeak) {
    if (!options.label_columns.empty()) {
      loader.label_columns = options.label_columns;
    } else {
      // The run's columns when it read this format, else the format's default column.
      const data::LoaderConfig& run = config.data.files.loader;
      std::vector<int> columns = {bed ? 4 : 7};
      if (config.data.source == "files" && run.format == format && !run.label_columns.empty()) {
        columns = run.label_columns;
      }
      loader.labelled = first_interval_has_labels(options.intervals, columns);
      if (loader.labelled) loader.label_columns = columns;
    }
  } else if (!options.label_columns.empty()) {
    throw ConfigError(
        fmt::format("--label-columns: {} files label their own columns; it is for bed and "
                    "narrowpeak",
                    data::interval_format_name(format)));
  }
  return build_files_split("predict", loader);
}

// An unlabelled split of windows that are exactly the intervals of `set`.
DataSplit window_split(data::FastaReader reader, data::IntervalSet set, int64_t window) {
  data::IntervalSourceOptions source_options;
  source_options.window = window;
  source_options.use_summit = false;
  source_options.labels = {data::LabelKind::kReal, false};
  return describe_split("predict", std::make_shared<data::IntervalSource>(
                                       std::move(reader), std::move(set), source_options));
}

// --tile REGION...: windows every `step` bases; regions sorted and not overlapping, so a
// bedGraph of the windows' central bases is sorted and non-overlapping too.
DataSplit tile_split(const PredictOptions& options, int64_t window, int64_t step) {
  data::FastaReader reader(options.fasta);
  std::vector<data::Region> regions;
  for (const std::string& text : options.tiles) {
    try {
      regions.push_back(data::parse_region(text, reader.contigs()));
    } catch (const data::DataError& error) {
      throw ConfigError(fmt::format("--tile: {} (FASTA '{}')", error.what(), options.fasta));
    }
  }
  std::sort(regions.begin(), regions.end(), [&reader](const auto& a, const auto& b) {
    const int ia = reader.contig_id(a.contig);
    const int ib = reader.contig_id(b.contig);
    return ia != ib ? ia < ib : a.start < b.start;
  });
  data::IntervalSet set;
  set.path = "--tile";
  for (size_t i = 0; i < regions.size(); ++i) {
    const data::Region& r = regions[i];
    if (i > 0 && regions[i - 1].contig == r.contig && regions[i - 1].end > r.start) {
      throw ConfigError(fmt::format("--tile: regions {}:{}-{} and {}:{}-{} overlap",
                                    regions[i - 1].contig, regions[i - 1].start + 1,
                                    regions[i - 1].end, r.contig, r.start + 1, r.end));
    }
    try {
      data::tile_region(r, window, step, set);
    } catch (const data::DataError& error) {
      throw ConfigError(fmt::format("--tile: {}", error.what()));
    }
  }
  return window_split(std::move(reader), std::move(set), window);
}

// --fasta alone: every record is a sample, of the model's length (or centred with --center).
DataSplit record_split(const PredictOptions& options, int64_t window) {
  data::FastaReader reader(options.fasta);
  if (window == 0) {
    // A records run of window 0 takes the records' common length.
    window = reader.contigs().front().length;
    for (const data::Contig& record : reader.contigs()) {
      if (record.length != window) {
        throw ConfigError(fmt::format(
            "--fasta: records '{}' ({} bases) and '{}' ({} bases) differ in length and the run "
            "gives no window; pass --window",
            reader.contigs().front().name, window, record.name, record.length));
      }
    }
  }
  data::IntervalSet set;
  try {
    set = data::record_windows(reader, window, options.center);
  } catch (const data::DataError& error) {
    throw ConfigError(fmt::format("--fasta: {}", error.what()));
  }
  DataSplit split = window_split(std::move(reader), std::move(set), window);
  // Named by the record; the window's place in it is in the start and end columns.
  const auto& intervals =
      dynamic_cast<const data::IntervalSource&>(*split.source).intervals().intervals;
  for (size_t i = 0; i < intervals.size(); ++i) split.sample_names[i] = intervals[i].contig;
  return split;
}

// The bases each sample's scored window covers: an interval source knows; a record or a
// simulated sequence is named by itself and its window is centred in it.
data::Interval scored_window(const DataSplit& split, int64_t index) {
  if (const auto* source = dynamic_cast<const data::IntervalSource*>(split.source.get())) {
    return source->window(index);
  }
  const int64_t length = split.source->length();
  const int64_t raw = split.raw_lengths[static_cast<size_t>(index)];
  data::Interval window;
  window.contig = split.sample_names[static_cast<size_t>(index)];
  window.start = data::window_start(raw / 2, length, 0, raw);
  window.end = std::min(window.start + length, raw);
  return window;
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

// The column each score column of the reverse complement's row is averaged into, for --rc-average:
// itself, except for an output with one value per profile track (target log_counts), whose
// stranded pairs swap as the loader swaps their tracks ("plus.bw,minus.bw": the reverse
// complement's plus strand is the forward's minus strand).
std::vector<int64_t> reverse_columns(const RunConfig& config, const Model& model, size_t output,
                                     int64_t columns) {
  std::vector<int64_t> map(static_cast<size_t>(columns));
  for (int64_t c = 0; c < columns; ++c) map[static_cast<size_t>(c)] = c;
  if (!config.model.graph()) return map;
  const std::string name = model.output_names()[output];
  const auto spec = std::find_if(config.model.outputs.begin(), config.model.outputs.end(),
                                 [&name](const OutputSpec& o) { return o.name == name; });
  if (spec == config.model.outputs.end() || spec->target != "log_counts") return map;
  const std::vector<int64_t> tracks = data::reverse_track_map(data::parse_track_groups(
      config.data.files.loader.signals.profile_bigwigs, "data.profile_bigwigs"));
  if (static_cast<int64_t>(tracks.size()) != columns) {
    throw ConfigError(
        fmt::format("--rc-average: output '{}' gives {} values per profile track, but the run's "
                    "data.profile_bigwigs name {} tracks: which strands to swap is unknown",
                    name, columns, tracks.size()));
  }
  return tracks;
}

// The mean score of each sample over its rows (N, T): one row per sample, two with both strands
// (the forward, then the reverse complement, as the sampler plans them; DeepSEA averages them).
// The reverse complement's column reverse[t] is averaged into column t.
std::vector<float> scores_per_sample(const train::Predictions& predictions, int64_t samples,
                                     const DataSplit& split, const std::string& checkpoint,
                                     const std::vector<int64_t>& reverse) {
  const int64_t targets = predictions.num_targets;
  std::vector<double> sums(static_cast<size_t>(samples * targets), 0.0);
  std::vector<int64_t> rows(static_cast<size_t>(samples), 0);
  for (size_t r = 0; r < predictions.sample_index.size(); ++r) {
    const int64_t sample = predictions.sample_index[r];
    // data::SamplerOptions::both_strands: each sample's forward row, then its reverse row.
    const bool reverse_row = rows[static_cast<size_t>(sample)] == 1;
    for (int64_t t = 0; t < targets; ++t) {
      const int64_t column = reverse_row ? reverse[static_cast<size_t>(t)] : t;
      const float score = predictions.scores[r * static_cast<size_t>(targets) + column];
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

// The checks of the flags that no single flag's range or words state.
void check_predict_flags(const PredictOptions& options, const std::string& out_format) {
  if (options.out.empty()) throw ConfigError("--out: an output TSV path (or -) is required");
  // Before the work: a genome's tiles take hours to score.
  if (options.out != "-") check_output_file(options.out, "--out");
  check_input_file(options.fasta, "--fasta");
  check_input_file(options.intervals, "--intervals");
  check_input_file(options.config, "--config");
  if (options.out != "-") {
    refuse_overwriting_input(options.out, "--out",
                             {{options.fasta, "--fasta"},
                              {options.intervals, "--intervals"},
                              {options.config, "--config"},
                              {options.model, "--model"}});
  }
  if (options.step && options.tiles.empty()) throw ConfigError("--step: goes with --tile");
  if (!options.task.empty() && out_format != "bedgraph") {
    throw ConfigError("--task: chooses the task of a bedGraph (--out-format bedgraph)");
  }
  if (out_format == "bedgraph" && options.tiles.empty()) {
    throw ConfigError(
        "--out-format bedgraph: a bedGraph needs non-overlapping windows: give --tile REGION "
        "(or write a TSV)");
  }
  if (!options.tiles.empty() && (options.fasta.empty() || !options.intervals.empty())) {
    throw ConfigError("--tile: takes --fasta (the genome to tile) and no --intervals");
  }
  if (options.center &&
      (options.fasta.empty() || !options.intervals.empty() || !options.tiles.empty())) {
    throw ConfigError("--center: applies to the records of --fasta alone (no --intervals, --tile)");
  }
  if (!options.label_columns.empty() && options.intervals.empty()) {
    throw ConfigError("--label-columns: goes with --intervals");
  }
}

// The table's format: --out-format, else bedgraph for a .bedgraph or .bg file, else tsv.
std::string output_format(const PredictOptions& options) {
  if (!options.out_format.empty()) return options.out_format;
  const std::string name = lower(options.out);
  return name.ends_with(".bedgraph") || name.ends_with(".bg") ? "bedgraph" : "tsv";
}

// The samples: tiles, the records of --fasta alone, --intervals, or the simulated test split;
// windows of --window, else the run's input length.
DataSplit predict_split(const PredictOptions& options, const RunConfig& config) {
  const bool files = config.data.source == "files";
  const data::IntervalFormat format =
      options.format.value_or(files ? config.data.files.loader.format : data::IntervalFormat::kBed);
  const int64_t window = options.window.value_or(run_input_length(config));
  if (!options.tiles.empty()) {
    if (window == 0) {
      throw ConfigError("--window: tiles need the model's input length; the run gives none");
    }
    return tile_split(options, window, options.step.value_or(window));
  }
  if (!options.fasta.empty() && options.intervals.empty()) return record_split(options, window);
  if (!options.intervals.empty()) {
    if (options.fasta.empty()) throw ConfigError("predict: --intervals needs --fasta");
    if (format == data::IntervalFormat::kRecords) {
      refuse_intervals_as_records(options.intervals);
    } else if (window == 0) {
      throw ConfigError(
          fmt::format("--window: {} intervals need a window of at least 1 base (0 is for records)",
                      data::interval_format_name(format)));
    }
    return interval_file_split(options, config, format, window);
  }
  if (config.data.source != "simulated") {
    throw ConfigError(
        "predict: give --fasta (with --intervals, --tile, or alone for its records); the run did "
        "not use simulated data");
  }
  RunData data = build_run_data(config);
  return std::move(*data.test);
}

// The column each score column of a reverse complement's row is averaged into (itself, unless
// --rc-average swaps stranded tracks): known before the work.
std::vector<int64_t> reverse_map(const PredictOptions& options, const RunConfig& config,
                                 const TrainedModel& trained, size_t output) {
  const Model& model = *trained.model;
  const int64_t columns = model.output_shapes(input_shapes(trained.dimensions))[output][0];
  if (options.rc_average) return reverse_columns(config, model, output, columns);
  std::vector<int64_t> reverse(static_cast<size_t>(columns));
  for (int64_t t = 0; t < columns; ++t) reverse[static_cast<size_t>(t)] = t;
  return reverse;
}

// The scores of the model's output `output` for every sample of `split` (averaged over both
// strands with --rc-average), checked finite.
std::vector<float> predicted_scores(const PredictOptions& options, const TrainedModel& trained,
                                    size_t output, const DataSplit& split,
                                    const std::vector<int64_t>& reverse) {
  Model& model = *trained.model;
  std::unique_ptr<data::DataLoader> loader =
      prediction_loader(split, options.batch_size, options.rc_average);
  const train::Predictions predictions = train::predict(model, *loader, output);
  if (static_cast<int64_t>(reverse.size()) != predictions.num_targets) {
    throw Error(fmt::format("predict: output '{}' gave {} values per sample, its shape says {}",
                            model.output_names()[output], predictions.num_targets, reverse.size()));
  }
  return scores_per_sample(predictions, split.source->size(), split,
                           trained.files.checkpoint.string(), reverse);
}

// Writes `text` to --out (atomically) or standard output.
void write_table(const PredictOptions& options, const std::string& text, int64_t rows,
                 std::ostream& out, std::ostream& log) {
  if (options.out == "-") {
    out << text << std::flush;
    if (!out) throw Error("--out -: writing the table to standard output failed");
    log << fmt::format("wrote {} rows to standard output\n", rows);
  } else {
    io::write_file_atomically(options.out, text);
    log << fmt::format("wrote {} ({} rows)\n", options.out, rows);
  }
}

// --out-format: tsv or bedgraph (a ConfigError, as the other checks of predict's values).
void refuse_other_output_formats(const std::string& name, const ConfigValue& value) {
  const std::string& word = std::get<std::string>(value);
  if (word != "tsv" && word != "bedgraph") {
    throw ConfigError(fmt::format("{}: '{}' is not one of tsv, bedgraph", name, word));
  }
}

// --window: >= 1, or 0 for records (their common length).
void refuse_negative_windows(const std::string& name, const ConfigValue& value) {
  if (std::get<int64_t>(value) < 0) {
    throw ConfigError(fmt::format("{}: must be >= 1 (records: 0 for their common length), got {}",
                                  name, std::get<int64_t>(value)));
  }
}

}  // namespace

const std::vector<ConfigKey>& predict_keys() {
  const std::vector<std::string> predict = {"predict"};
  static const std::vector<ConfigKey> keys = {
      {.key = "model",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.model; }),
       .flag = "--model",
       .help = "Run directory or checkpoint file",
       .commands = predict,
       .required = true},
      {.key = "config",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.config; }),
       .flag = "--config",
       .help = "Config to build the model from (default: the run's config.json)",
       .commands = predict},
      {.key = "fasta",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.fasta; }),
       .flag = "--fasta",
       .help = "FASTA: the genome of --intervals or --tile, or alone: score every record (omit: "
               "the simulated test split)",
       .commands = predict},
      {.key = "intervals",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.intervals; }),
       .flag = "--intervals",
       .help = "Intervals (bed incl. BED3/BED6, narrowpeak, dream) or records label TSV",
       .commands = predict},
      {.key = "format",
       .field = enum_field<PredictOptions>(
           [](auto& o) -> auto& { return o.format; }, data::interval_format_names(),
           data::parse_interval_format),
       .flag = "--format",
       .help = "Format of --intervals",
       .commands = predict,
       .unset = "the run's"},
      {.key = "label-columns",
       .field = columns_field<PredictOptions>(
           [](auto& o) -> auto& { return o.label_columns; }, 4),
       .flag = "--label-columns",
       .help = "bed/narrowpeak label columns copied to the output, 4-167 or 4,6 (default: the "
               "run's, else bed 4 / narrowpeak 7, when the first interval has labels there)",
       .commands = predict},
      {.key = "tile",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.tiles; }),
       .flag = "--tile",
       .help = "Score windows across REGION (chr1, chr1:1-1000000: 1-based inclusive as in "
               "samtools); repeat for several regions",
       .commands = predict},
      {.key = "step",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.step; }),
       .range = IntRange{1, kMaxSequenceLength},
       .flag = "--step",
       .help = "Bases between --tile windows, 1 to the window",
       .commands = predict,
       .unset = "the window"},
      {.key = "center",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.center; }),
       .flag = "--center",
       .help = "--fasta alone: score the central window of records longer than the model's "
               "input (default: such records are an error)",
       .commands = predict},
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
      {.key = "window",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.window; }),
       .range = data::loader_ranges::kRecordsWindow,
       .range_note = "records: 0 for their common length",
       .flag = "--window",
       .help = "Bases per sample, >= 1; records: 0 = their common length",
       .commands = predict,
       .unset = "the run's",
       .rule = refuse_negative_windows},
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
      {.key = "threads",
       .field = field<PredictOptions>([](auto& o) -> auto& { return o.threads; }),
       .range = IntRange{.lo = 0, .up_to_thread_cap = true},
       .range_note = "0: OMP_NUM_THREADS, else all cores",
       .flag = "--threads",
       .help = "CPU threads",
       .commands = predict},
  };
  return keys;
}

int64_t run_predict(const PredictOptions& options, std::ostream& out, std::ostream& err) {
  const std::string out_format = output_format(options);
  check_predict_flags(options, out_format);
  std::ostream& log = message_stream(options, out, err);
  const TrainedModelFiles files = locate_trained_model(options.model, options.config);
  RunConfig config = load_config_file(files.config);
  if (options.threads > 0) config.threads = options.threads;
  omp_set_num_threads(resolved_threads(config));
  const DataSplit split = predict_split(options, config);
  const int64_t length = split.source->length();
  const TrainedModel trained = load_trained_model(files, config, length);
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
  const std::vector<int64_t> reverse = reverse_map(options, config, trained, output);
  log << fmt::format("predict: {} samples of {} bp with {}{}\n", split.source->size(), length,
                     trained.files.checkpoint.string(),
                     options.rc_average ? " (averaged with the reverse complement)" : "");
  const std::vector<float> scores = predicted_scores(options, trained, output, split, reverse);
  const auto columns = static_cast<int64_t>(reverse.size());
  std::vector<std::string> tasks = trained.task_names;
  if (static_cast<int64_t>(tasks.size()) != columns) {
    // Not the labels' columns (another output, or names that cannot be read): numbered.
    tasks = data::SequenceSource::default_task_names(columns);
  }
  const int64_t n = split.source->size();
  const std::string text = out_format == "bedgraph" ? bedgraph_table(split, scores, columns,
                                                                     bedgraph_task(options, tasks),
                                                                     options.step.value_or(length))
                                                    : tsv_table(split, scores, tasks);
  write_table(options, text, n, out, log);
  return n;
}

}  // namespace strand::cli
