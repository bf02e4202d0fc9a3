// Interval file parsing (BED / narrowPeak / DREAM TSV) and validation against a genome.
#include "data/intervals/intervals.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "data/data_error.h"
#include "data/labels.h"
#include "data/sources/sequence_source.h"
#include "data/text_fields.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

constexpr int kNarrowPeakColumns = 10;
constexpr int kSummitColumn = 10;  // 1-based

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// True when `line` is `keyword` alone or followed by a space or tab (UCSC "track name=x",
// "browser position ..."); a contig such as "track1" or "browserX" is data.
bool starts_with_keyword(std::string_view line, std::string_view keyword) {
  if (!line.starts_with(keyword)) return false;
  return line.size() == keyword.size() || line[keyword.size()] == ' ' ||
         line[keyword.size()] == '\t';
}

bool is_bed_comment(std::string_view line) {
  return line.starts_with('#') || starts_with_keyword(line, "track") ||
         starts_with_keyword(line, "browser");
}

int64_t parse_coordinate(std::string_view field, const std::string& path, int64_t line,
                         const char* what) {
  const auto value = parse_int(field);
  if (!value) {
    throw DataError(
        fmt::format("{}:{}: {} must be an integer, found '{}'", path, line, what, excerpt(field)));
  }
  return *value;
}

// read_intervals' pass over one file: the header (DREAM), the comments that may name the tasks
// (BED, narrowPeak) and the interval lines, each checked as it is read.
class IntervalFileReader {
 public:
  IntervalFileReader(const std::string& path, const IntervalReadOptions& options);
  IntervalSet read();

 private:
  using Fields = std::vector<std::string_view>;
  // Whether every label column of `fields` holds a task name rather than a label.
  bool names_tasks(const Fields& fields) const;
  void read_dream_header(const Fields& fields, int64_t n, const std::string& line);
  void read_comment(const std::string& line, int64_t n);
  void check_interval_line(const Fields& fields, int64_t n, const std::string& line) const;
  void read_interval(const Fields& fields, int64_t n);
  int64_t read_summit_offset(const Fields& fields, int64_t n) const;
  bool keep_coordinates(Interval& iv, int64_t n);
  void place_summit(Interval& iv, int64_t original_start, int64_t summit_offset, int64_t n) const;
  void read_labels(const Fields& fields, int64_t n);
  IntervalSet finish(int64_t lines);

  const std::string& path_;
  const IntervalReadOptions& options_;
  IntervalSet set_;
  LineReader reader_;
  std::vector<int> columns_;
  const bool dream_;
  bool have_header_;
  // BED/narrowPeak: a '#' line before the first interval may name the tasks.
  bool may_name_tasks_;
};

IntervalFileReader::IntervalFileReader(const std::string& path, const IntervalReadOptions& options)
    : path_(path),
      options_(options),
      reader_(path),
      columns_(options.label_columns),
      dream_(options.format == IntervalFormat::kDreamTsv),
      have_header_(!dream_),
      may_name_tasks_(!dream_ && options.labelled) {
  set_.path = path;
  if (!options.labelled) {
    columns_.clear();
  } else if (!dream_) {
    if (columns_.empty()) columns_ = {options.format == IntervalFormat::kBed ? 4 : 7};
    set_.target_names = SequenceSource::default_task_names(static_cast<int64_t>(columns_.size()));
  }
  for (const int c : columns_) {
    if (c < 4) {
      throw DataError(
          fmt::format("label column {} for '{}' must be 4 or more (1-based; 1-3 "
                      "are chrom, start, end)",
                      c, path));
    }
  }
}

bool IntervalFileReader::names_tasks(const Fields& fields) const {
  return std::all_of(columns_.begin(), columns_.end(), [&fields](int c) {
    return static_cast<size_t>(c) <= fields.size() &&
           is_target_name(fields[static_cast<size_t>(c - 1)]);
  });
}

IntervalSet IntervalFileReader::read() {
  std::string line;
  while (reader_.next(line)) {
    const int64_t n = reader_.line_number();
    if (is_blank(line)) continue;
    const auto fields = split_tabs(line);
    if (!have_header_) {
      read_dream_header(fields, n, line);
      continue;
    }
    if (!dream_ && is_bed_comment(line)) {
      read_comment(line, n);
      continue;
    }
    check_interval_line(fields, n, line);
    may_name_tasks_ = false;
    if (options_.names_only) break;
    read_interval(fields, n);
  }
  return finish(reader_.line_number());
}

void IntervalFileReader::read_dream_header(const Fields& fields, int64_t n,
                                           const std::string& line) {
  if (fields.size() < 4 || lower(fields[0]) != "chrom" || lower(fields[1]) != "start" ||
      lower(fields[2]) != "end") {
    throw DataError(fmt::format(
        "{}:{}: expected a header 'chrom<TAB>start<TAB>end<TAB>CELL...' with at least one "
        "label column, found '{}'",
        path_, n, excerpt(line)));
  }
  if (columns_.empty() && options_.labelled) {
    for (size_t i = 3; i < fields.size(); ++i) columns_.push_back(static_cast<int>(i + 1));
  }
  for (const int c : columns_) {
    if (static_cast<size_t>(c) > fields.size()) {
      throw DataError(fmt::format("{}:{}: label column {} requested but the header has {} columns",
                                  path_, n, c, fields.size()));
    }
    set_.target_names.emplace_back(fields[static_cast<size_t>(c - 1)]);
  }
  have_header_ = true;
}

void IntervalFileReader::read_comment(const std::string& line, int64_t n) {
  if (!may_name_tasks_ || !line.starts_with('#')) return;
  const Fields names = split_tabs(std::string_view(line).substr(1));
  if (!names_tasks(names)) return;
  set_.target_names.clear();
  for (const int c : columns_) {
    const std::string name(names[static_cast<size_t>(c - 1)]);
    if (std::find(set_.target_names.begin(), set_.target_names.end(), name) !=
        set_.target_names.end()) {
      throw DataError(fmt::format("{}:{}: task name '{}' appears twice in the header", path_, n,
                                  excerpt(name)));
    }
    set_.target_names.push_back(name);
  }
  may_name_tasks_ = false;
}

// A data line has chrom, start and end, and is not a header line without its '#'.
void IntervalFileReader::check_interval_line(const Fields& fields, int64_t n,
                                             const std::string& line) const {
  if (fields.size() < 3) {
    throw DataError(fmt::format(
        "{}:{}: expected at least 3 tab-separated fields (chrom, start, end), found {} in '{}'",
        path_, n, fields.size(), excerpt(line)));
  }
  if (!dream_ && set_.intervals.empty() && set_.stats.skipped == 0 && !columns_.empty() &&
      !parse_int(fields[1]) && names_tasks(fields)) {
    throw DataError(fmt::format(
        "{}:{}: '{}' looks like a header line; start it with '#' (#chrom<TAB>start<TAB>end<TAB>"
        "NAME...) to name the tasks by its fields at the label columns",
        path_, n, excerpt(line)));
  }
}

void IntervalFileReader::read_interval(const Fields& fields, int64_t n) {
  Interval iv;
  iv.contig = std::string(fields[0]);
  iv.start = parse_coordinate(fields[1], path_, n, "start (column 2)");
  iv.end = parse_coordinate(fields[2], path_, n, "end (column 3)");
  iv.line = n;
  const int64_t original_start = iv.start;
  // narrowPeak column 10, relative to the original start
  const int64_t summit_offset = read_summit_offset(fields, n);
  for (const int c : columns_) {
    if (static_cast<size_t>(c) > fields.size()) {
      throw DataError(fmt::format("{}:{}: missing label column {} (line has {} columns)", path_, n,
                                  c, fields.size()));
    }
  }
  if (!keep_coordinates(iv, n)) {
    ++set_.stats.skipped;
    return;
  }
  if (summit_offset >= 0) place_summit(iv, original_start, summit_offset, n);
  read_labels(fields, n);
  set_.intervals.push_back(std::move(iv));
}

// narrowPeak's summit offset (column 10); -1 for no summit and other formats.
int64_t IntervalFileReader::read_summit_offset(const Fields& fields, int64_t n) const {
  if (options_.format != IntervalFormat::kNarrowPeak) return -1;
  if (fields.size() < kNarrowPeakColumns) {
    throw DataError(fmt::format("{}:{}: narrowPeak needs {} columns, found {}", path_, n,
                                kNarrowPeakColumns, fields.size()));
  }
  const int64_t summit_offset =
      parse_coordinate(fields[kSummitColumn - 1], path_, n, "summit (column 10)");
  if (summit_offset < -1) {
    throw DataError(fmt::format(
        "{}:{}: summit (column 10) must be -1 (no summit) or an offset >= 0 from start, "
        "found {}",
        path_, n, summit_offset));
  }
  return summit_offset;
}

// Coordinates that are wrong whatever the genome: an error, clipped or skipped (false) by the
// policy.
bool IntervalFileReader::keep_coordinates(Interval& iv, int64_t n) {
  if (iv.start >= 0 && iv.start < iv.end) return true;
  const std::string problem = iv.start < 0
                                  ? fmt::format("start {} is negative", iv.start)
                                  : fmt::format("start {} is not before end {}", iv.start, iv.end);
  if (options_.policy == BadIntervalPolicy::kError) {
    throw DataError(fmt::format("{}:{}: {} (expected 0 <= start < end)", path_, n, problem));
  }
  if (options_.policy == BadIntervalPolicy::kClip && iv.start < 0 && iv.end > 0) {
    iv.start = 0;
    ++set_.stats.clipped;
    return true;
  }
  return false;
}

void IntervalFileReader::place_summit(Interval& iv, int64_t original_start, int64_t summit_offset,
                                      int64_t n) const {
  // start + offset is formed only when it cannot overflow (the offset may be up to INT64_MAX).
  int64_t summit = 0;
  if (__builtin_add_overflow(original_start, summit_offset, &summit) || summit >= iv.end) {
    throw DataError(fmt::format(
        "{}:{}: summit offset {} (column 10) lies outside the interval [{}, {}) (expected -1 "
        "or an offset below end - start)",
        path_, n, summit_offset, original_start, iv.end));
  }
  // A summit in the part kClip cut away is dropped, as validate_intervals does.
  iv.summit = summit >= iv.start ? summit : -1;
}

void IntervalFileReader::read_labels(const Fields& fields, int64_t n) {
  for (const int c : columns_) {
    const std::string_view field = fields[static_cast<size_t>(c - 1)];
    const Label v = dream_ ? parse_dream_label(field, path_, n, c)
                           : parse_label(field, options_.labels.kind, path_, n, c);
    set_.labels.push_back(v.value);
    set_.label_mask.push_back(v.valid ? 1 : 0);
    if (!v.valid) ++set_.stats.masked_labels;
  }
}

IntervalSet IntervalFileReader::finish(int64_t lines) {
  set_.stats.lines = lines;
  if (!have_header_) {
    throw DataError(
        fmt::format("'{}' is empty: expected a header line 'chrom start end CELL...'", path_));
  }
  if (options_.names_only) return std::move(set_);
  if (set_.intervals.empty()) {
    throw DataError(fmt::format("'{}' contains no intervals ({} lines read, {} skipped)", path_,
                                set_.stats.lines, set_.stats.skipped));
  }
  set_.stats.intervals = set_.size();
  if (!columns_.empty()) {
    check_some_label_valid(set_.label_mask, options_.labels, path_, set_.size());
  }
  return std::move(set_);
}

}  // namespace

const std::vector<std::string>& interval_format_names() {
  static const std::vector<std::string> names = {"bed", "narrowpeak", "dream", "records"};
  return names;
}

const std::string& interval_format_name(IntervalFormat format) {
  return interval_format_names()[static_cast<size_t>(format)];
}

IntervalFormat parse_interval_format(const std::string& name) {
  const std::string l = lower(name);
  if (l == "tsv") return IntervalFormat::kDreamTsv;
  const std::vector<std::string>& names = interval_format_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (l == names[i]) return static_cast<IntervalFormat>(i);
  }
  throw DataError(fmt::format(
      "unknown interval format '{}': expected bed, narrowpeak, dream or records", name));
}

IntervalSet read_intervals(const std::string& path, const IntervalReadOptions& options) {
  if (options.format == IntervalFormat::kRecords) {
    throw DataError(
        fmt::format("'{}': records are read as FASTA records with a label TSV "
                    "(data/sources/record_source.h), not as "
                    "intervals",
                    path));
  }
  return IntervalFileReader(path, options).read();
}

void refuse_non_peaks(const std::string& path, IntervalFormat format, const std::string& use) {
  if (format != IntervalFormat::kBed) return;  // narrowPeak's column 7 is a signal, not a label
  IntervalReadOptions options;
  options.label_columns = {4};
  options.labels = {LabelKind::kReal, false};
  IntervalSet labelled;
  try {
    labelled = read_intervals(path, options);
  } catch (const DataError&) {
    return;  // column 4 holds names, or there is none: no labels to lose
  }
  const Interval* first_zero = nullptr;
  int64_t zeros = 0;
  for (size_t i = 0; i < labelled.intervals.size(); ++i) {
    if (!labelled.label_mask[i]) continue;
    const float label = labelled.labels[i];
    if (label != 0.0F && label != 1.0F) return;  // scores or ids, not 0/1 labels
    if (label == 0.0F) {
      if (first_zero == nullptr) first_zero = &labelled.intervals[i];
      ++zeros;
    }
  }
  if (first_zero == nullptr) return;
  throw DataError(fmt::format(
      "{}:{}: column 4 labels this interval 0 ({} of the {} intervals are labelled 0), but with "
      "{} every interval of the file is a peak, labelled 1, and column 4 is not read: give a "
      "file of peaks only (drop the rows labelled 0), or train on its labels without negatives",
      path, first_zero->line, zeros, labelled.size(), use));
}

void set_task_names(IntervalSet& set, std::vector<std::string> names) {
  if (names.size() != set.target_names.size()) {
    throw DataError(fmt::format("{} task names given ({}) but '{}' has {} label columns ({})",
                                names.size(), fmt::join(names, ","), set.path,
                                set.target_names.size(), fmt::join(set.target_names, ",")));
  }
  set.target_names = std::move(names);
}

void validate_intervals(IntervalSet& set, const std::vector<Contig>& contigs,
                        const std::string& fasta_path, BadIntervalPolicy policy,
                        const LabelOptions& labels) {
  std::unordered_map<std::string_view, int64_t> lengths;
  for (const Contig& c : contigs) lengths.emplace(c.name, c.length);
  const auto t = static_cast<size_t>(set.num_targets());
  size_t kept = 0;
  for (size_t i = 0; i < set.intervals.size(); ++i) {
    Interval& iv = set.intervals[i];
    const auto it = lengths.find(iv.contig);
    bool keep = true;
    if (it == lengths.end()) {
      if (policy == BadIntervalPolicy::kError) {
        throw DataError(fmt::format("{}:{}: contig '{}' is not in FASTA '{}'", set.path, iv.line,
                                    excerpt(iv.contig), fasta_path));
      }
      keep = false;
    } else if (iv.end > it->second) {
      if (policy == BadIntervalPolicy::kError) {
        throw DataError(fmt::format("{}:{}: end {} is past the end of contig '{}' (length {})",
                                    set.path, iv.line, iv.end, iv.contig, it->second));
      }
      if (policy == BadIntervalPolicy::kClip && iv.start < it->second) {
        iv.end = it->second;
        if (iv.summit >= iv.end) iv.summit = -1;
        ++set.stats.clipped;
      } else {
        keep = false;
      }
    }
    if (!keep) {
      ++set.stats.skipped;
      continue;
    }
    if (kept != i) {
      set.intervals[kept] = std::move(iv);
      std::copy_n(set.labels.begin() + static_cast<std::ptrdiff_t>(i * t), t,
                  set.labels.begin() + static_cast<std::ptrdiff_t>(kept * t));
      std::copy_n(set.label_mask.begin() + static_cast<std::ptrdiff_t>(i * t), t,
                  set.label_mask.begin() + static_cast<std::ptrdiff_t>(kept * t));
    }
    ++kept;
  }
  set.intervals.resize(kept);
  set.labels.resize(kept * t);
  set.label_mask.resize(kept * t);
  set.stats.intervals = set.size();
  if (set.intervals.empty()) {
    throw DataError(fmt::format("no interval of '{}' lies on a contig of '{}' ({} skipped)",
                                set.path, fasta_path, set.stats.skipped));
  }
  // read_intervals() checked this before intervals were dropped (found by fuzz/fuzz_bed).
  if (labels.require_valid && set.num_targets() > 0 &&
      std::none_of(set.label_mask.begin(), set.label_mask.end(), [](uint8_t m) { return m; })) {
    throw DataError(fmt::format(
        "every interval of '{}' with a valid label was dropped as invalid for '{}' ({} skipped): "
        "the {} left have only missing labels ('.', NA or nan), nothing to train or evaluate on",
        set.path, fasta_path, set.stats.skipped, set.size()));
  }
}

}  // namespace strand::data
