// The sequences a trained model scores (app/scoring_inputs.h): FASTA records, intervals of a
// genome, tiles of regions, or a run's simulated test split.
#include "app/scoring_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "app/config_error.h"
#include "app/trained_model.h"
#include "data/data_error.h"
#include "data/intervals/scoring_windows.h"
#include "data/labels.h"
#include "data/list_syntax.h"
#include "data/sources/interval_source.h"
#include "data/sources/streamed_record_source.h"
#include "data/text_fields.h"

namespace strand::app {
namespace {

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
DataSplit interval_file_split(const ScoringInputs& options, const RunConfig& config,
                              data::IntervalFormat format, int64_t window) {
  data::LoaderConfig loader;
  loader.fasta = options.fasta;
  loader.intervals = options.intervals;
  loader.format = format;
  loader.window = window;
  loader.labels = {data::LabelKind::kReal, false};
  // Scoring reads each window once: from the file when it is needed, so memory stays flat
  // however many intervals there are (no pool of every window's bases).
  loader.streaming = format != data::IntervalFormat::kRecords;
  const bool bed = format == data::IntervalFormat::kBed;
  if (bed || format == data::IntervalFormat::kNarrowPeak) {
    if (!options.label_columns.empty()) {
      loader.label_columns = options.label_columns;
    } else {
      // The run's columns when it read this format, else the format's default column.
      const data::LoaderSettings& run = config.data.files.loader;
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
  return build_files_split(options.command, loader);
}

// An unlabelled split of windows that are exactly the intervals of `set`.
DataSplit window_split(const std::string& command, data::FastaReader reader, data::IntervalSet set,
                       int64_t window) {
  data::IntervalSourceOptions source_options;
  source_options.window = window;
  source_options.use_summit = false;
  source_options.labels = {data::LabelKind::kReal, false};
  source_options.streaming = true;  // each window is read once, when it is scored
  return describe_split(command, std::make_shared<data::IntervalSource>(
                                     std::move(reader), std::move(set), source_options));
}

// --tile REGION...: windows every `step` bases; regions sorted and not overlapping, so a
// bedGraph of the windows' central bases is sorted and non-overlapping too.
DataSplit tile_split(const ScoringInputs& options, int64_t window, int64_t step) {
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
  return window_split(options.command, std::move(reader), std::move(set), window);
}

// --fasta alone: every record is a sample, of the model's length (or centred with --center),
// read from the file as it is scored: no per-record index, name or window is kept, so memory
// stays flat however many records there are (sample_names stays empty; SampleWindows reads the
// names in order).
DataSplit record_split(const ScoringInputs& options, int64_t window) {
  DataSplit split;
  split.name = options.command;
  try {
    split.source =
        std::make_shared<data::StreamedRecordSource>(options.fasta, window, options.center);
  } catch (const data::RecordLengthError& error) {
    throw ConfigError(fmt::format("--fasta: {}", error.what()));
  }
  return split;
}

}  // namespace

void check_scoring_inputs(const ScoringInputs& options) {
  if (!options.tiles.empty() && (options.fasta.empty() || !options.intervals.empty())) {
    throw ConfigError("--tile: takes --fasta (the genome to tile) and no --intervals");
  }
  if (options.step && options.tiles.empty()) throw ConfigError("--step: goes with --tile");
  if (options.center &&
      (options.fasta.empty() || !options.intervals.empty() || !options.tiles.empty())) {
    throw ConfigError("--center: applies to the records of --fasta alone (no --intervals, --tile)");
  }
  if (!options.label_columns.empty() && options.intervals.empty()) {
    throw ConfigError("--label-columns: goes with --intervals");
  }
}

DataSplit build_scoring_split(const ScoringInputs& options, const RunConfig& config) {
  check_scoring_inputs(options);
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
    if (options.fasta.empty()) throw ConfigError(options.command + ": --intervals needs --fasta");
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
    throw ConfigError(options.command +
                      ": give --fasta (with --intervals, --tile, or alone for its records); the "
                      "run did not use simulated data");
  }
  RunData data = build_run_data(config);
  return std::move(*data.test);
}

void refuse_negative_windows(const std::string& name, const ConfigValue& value) {
  if (std::get<int64_t>(value) < 0) {
    throw ConfigError(fmt::format("{}: must be >= 1 (records: 0 for their common length), got {}",
                                  name, std::get<int64_t>(value)));
  }
}

}  // namespace strand::app
