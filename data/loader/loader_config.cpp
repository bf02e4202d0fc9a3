// LoaderConfig validation and the source/loader factory.
#include "data/loader/loader_config.h"

#include <filesystem>
#include <map>
#include <string_view>
#include <tuple>

#include "data/data_error.h"
#include "data/intervals/negatives.h"
#include "data/sources/interval_source.h"
#include "data/sources/record_source.h"
#include "data/text_fields.h"
#include "data/warnings.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

template <typename T>
void require(bool ok, const char* field, const T& value, const char* allowed) {
  if (!ok) {
    throw DataError(fmt::format("LoaderConfig.{} = {} is invalid: {}", field, value, allowed));
  }
}

// The same interval twice in a labelled file is one window counted twice, in training and in
// the figures; said once, with the first repeat (a FASTA name twice, or a record listed twice in
// a label TSV, is an error; a BED may repeat a peak on purpose, so this warns).
void warn_repeated_intervals(const IntervalSet& set) {
  std::map<std::tuple<std::string_view, int64_t, int64_t, int64_t>, int64_t> line_of;
  int64_t repeats = 0, line = 0, first = 0;
  for (const Interval& iv : set.intervals) {
    const auto [it, inserted] =
        line_of.emplace(std::tuple<std::string_view, int64_t, int64_t, int64_t>{iv.contig, iv.start,
                                                                                iv.end, iv.summit},
                        iv.line);
    if (inserted) continue;
    if (repeats++ == 0) line = iv.line, first = it->second;
  }
  if (repeats == 0) return;
  warn(fmt::format(
      "'{}': {} interval(s) repeat an earlier one (line {} repeats line {}); each copy is a "
      "sample of its own and weighs as much again in training and in the figures",
      set.path, repeats, line, first));
}

// A number of the config within its declared range (loader_ranges).
template <typename T, typename Range>
void require_in(const char* field, T value, const Range& range, const char* note = "") {
  if (!range.contains(value)) {
    require(false, field, value, fmt::format("must be in {}{}", range.text(), note).c_str());
  }
}

}  // namespace

void LoaderSettings::validate() const {
  namespace ranges = loader_ranges;
  const bool records = format == IntervalFormat::kRecords;
  const bool peaks = format == IntervalFormat::kBed || format == IntervalFormat::kNarrowPeak;
  require(!fasta.empty(), "fasta", "''", "a FASTA path is required");
  require(!intervals.empty(), "intervals", "''", "an interval or label file path is required");
  require_in("window", window, records ? ranges::kRecordsWindow : ranges::kWindow,
             records ? " (0: the records' common length)" : "");
  require_in("jitter", jitter, ranges::kJitter);
  const std::string jitter_fits = jitter_problem(jitter, window);
  require(jitter_fits.empty(), "jitter", jitter, jitter_fits.c_str());
  require_in("rc_probability", rc_probability, ranges::kProbability);
  require_in("substitution_rate", substitution_rate, ranges::kProbability);
  require_in("prefetch", prefetch, ranges::kPrefetch);
  require_in("loader_threads", loader_threads, ranges::kLoaderThreads);
  for (const int c : label_columns) {
    require(c >= 4, "label_columns", c, "entries are 1-based columns >= 4");
  }
  require(!(records && streaming), "streaming", "true", "records are always held in memory");
  require(!(records && lower_mask), "lower_mask", "true", "not available for records");
  require(!(records && !labelled), "labelled", "false", "records are labelled by their label TSV");
  require_in("negatives_ratio", negatives_ratio, ranges::kNegativesRatio);
  require(!(negatives_ratio > 0 && records), "negatives_ratio", negatives_ratio,
          "negatives are drawn from a genome around interval peaks, not for records");
  require(!(negatives_ratio > 0 && format == IntervalFormat::kDreamTsv), "negatives_ratio",
          negatives_ratio, "DREAM files label their own negatives (U)");
  require(!(negatives_ratio > 0 && !label_columns.empty()), "negatives_ratio", negatives_ratio,
          "peaks are labelled 1 and negatives 0; label_columns must stay empty");
  require(!(negatives_ratio > 0 && !labelled), "negatives_ratio", negatives_ratio,
          "negatives give labels; labelled must be true");
  require(blacklist.empty() || negatives_ratio > 0, "blacklist", blacklist,
          "a blacklist only applies to negatives (negatives_ratio > 0)");
  require(!signals.any() || peaks, "format", interval_format_name(format),
          "bigWig tracks (signals) need bed or narrowpeak intervals");
  require_in("signals.profile_length", signals.profile_length, ranges::kProfileLength,
             " (0: the window)");
  require(!(negatives_ratio > 0 && signals.targets == TargetSource::kCounts), "negatives_ratio",
          negatives_ratio,
          "negatives are labelled 0 and peaks 1; count targets label windows by "
          "their bigWig sums instead");
}

void LoaderConfig::validate() const {
  LoaderSettings::validate();
  require_in("batch_size", batch_size, loader_ranges::kBatchSize);
  require(!balanced || batch_size % 2 == 0, "batch_size", batch_size, "must be even when balanced");
  require(shard_count >= 1, "shard_count", shard_count, "must be >= 1");
  require(shard_rank >= 0 && shard_rank < shard_count, "shard_rank", shard_rank,
          "must be in [0, shard_count)");
}

std::string jitter_problem(int64_t jitter, int64_t window) {
  if (window <= 0 || jitter <= window / 2) return "";
  return fmt::format(
      "more than half the {}-base window ({}): a shifted window would no longer hold its "
      "interval's centre",
      window, window / 2);
}

FastaReader open_fasta(const LoaderConfig& config) {
  FastaOptions fasta_options;
  fasta_options.index_path = config.fasta_index;
  if (!config.fasta_index.empty()) {
    // "x.fa.gz.fai" -> "x.fa.gz.gzi", next to the .fai like samtools places them.
    const std::string& fai = config.fasta_index;
    const bool has_suffix = fai.size() > 4 && fai.ends_with(".fai");
    fasta_options.gzi_path = (has_suffix ? fai.substr(0, fai.size() - 4) : fai) + ".gzi";
  }
  return FastaReader(config.fasta, fasta_options);
}

IntervalSet read_interval_set(const LoaderConfig& config, const FastaReader& reader) {
  IntervalReadOptions read_options;
  read_options.format = config.format;
  read_options.label_columns = config.label_columns;
  read_options.policy = config.bad_intervals;
  read_options.labels = config.labels;
  const bool negatives = config.negatives_ratio > 0;
  read_options.labelled =
      config.labelled && !negatives && config.signals.targets != TargetSource::kCounts;
  IntervalSet set = read_intervals(config.intervals, read_options);
  if (read_options.labelled) warn_repeated_intervals(set);
  if (negatives) {
    refuse_non_peaks(config.intervals, read_options.format, "data.negatives_ratio");
    validate_intervals(set, reader.contigs(), reader.path(), config.bad_intervals);
    std::vector<Interval> excluded;
    if (!config.blacklist.empty()) {
      excluded = read_blacklist(config.blacklist, reader.contigs(), reader.path());
    }
    NegativeSamplingOptions options;
    options.window = config.window;
    options.ratio = config.negatives_ratio;
    options.use_summit = config.use_summit;
    options.seed = config.seed;
    const NegativeSampling sampled = sample_gc_matched_negatives(reader, set, excluded, options);
    const size_t peaks = set.intervals.size();
    set.intervals.insert(set.intervals.end(), sampled.negatives.begin(), sampled.negatives.end());
    set.labels.assign(peaks, 1.0F);
    set.labels.resize(set.intervals.size(), 0.0F);
    set.label_mask.assign(set.intervals.size(), 1);
    set.target_names = {std::filesystem::path(config.intervals).stem().string()};
    set.stats.intervals = set.size();
  }
  if (!config.task_names.empty()) set_task_names(set, config.task_names);
  return set;
}

std::vector<std::string> read_task_names(const LoaderConfig& config) {
  config.validate();
  if (!config.task_names.empty()) return config.task_names;
  if (config.negatives_ratio > 0) {
    return {std::filesystem::path(config.intervals).stem().string()};
  }
  if (config.format == IntervalFormat::kRecords) {
    const FastaReader reader = open_fasta(config);
    LineReader in(config.intervals);
    std::string line;
    while (in.next(line)) {
      if (is_blank(line)) continue;
      const std::vector<std::string_view> fields = split_tabs(line);
      if (is_label_tsv_header(fields, reader)) return {fields.begin() + 1, fields.end()};
      return SequenceSource::default_task_names(static_cast<int64_t>(fields.size()) - 1);
    }
    return {};
  }
  IntervalReadOptions options;
  options.format = config.format;
  options.label_columns = config.label_columns;
  options.labelled = config.labelled;
  options.names_only = true;
  return read_intervals(config.intervals, options).target_names;
}

std::shared_ptr<SequenceSource> make_source(const LoaderConfig& config) {
  config.validate();
  FastaReader reader = open_fasta(config);
  if (config.format == IntervalFormat::kRecords) {
    auto source =
        std::make_shared<RecordSource>(reader, config.intervals, config.window, config.labels);
    if (!config.task_names.empty()) source->set_task_names(config.task_names);
    return source;
  }
  IntervalSet set = read_interval_set(config, reader);
  IntervalSourceOptions source_options;
  source_options.window = config.window;
  source_options.jitter = config.jitter;
  source_options.use_summit = config.use_summit;
  source_options.streaming = config.streaming;
  source_options.lower_mask = config.lower_mask;
  source_options.policy = config.bad_intervals;
  source_options.labels = config.labels;
  source_options.signals = config.signals;
  return std::make_shared<IntervalSource>(std::move(reader), std::move(set), source_options);
}

LoaderOptions loader_options(const LoaderConfig& config, BatchAllocator allocator) {
  LoaderOptions options;
  options.sampler.batch_size = config.batch_size;
  options.sampler.seed = config.seed;
  options.sampler.shuffle = config.shuffle;
  options.sampler.balanced = config.balanced;
  options.sampler.rank = config.shard_rank;
  options.sampler.world = config.shard_count;
  options.sampler.drop_last = config.drop_last;
  options.sampler.both_strands = config.both_strands;
  options.augment.jitter = config.jitter;
  options.augment.rc_probability = config.both_strands ? 0.0 : config.rc_probability;
  options.augment.substitution_rate = config.substitution_rate;
  options.loader_threads = static_cast<int>(config.loader_threads);
  options.prefetch = static_cast<int>(config.prefetch);
  options.lower_mask = config.lower_mask;
  options.allocator = std::move(allocator);
  return options;
}

std::unique_ptr<DataLoader> make_loader(const LoaderConfig& config, BatchAllocator allocator) {
  std::shared_ptr<SequenceSource> source = make_source(config);
  // Records of window 0 take their common length, known only now.
  const std::string problem = jitter_problem(config.jitter, source->length());
  require(problem.empty(), "jitter", config.jitter, problem.c_str());
  return std::make_unique<DataLoader>(std::move(source),
                                      loader_options(config, std::move(allocator)));
}

}  // namespace strand::data
