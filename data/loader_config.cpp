// LoaderConfig validation and the source/loader factory.
#include "data/loader_config.h"

#include "data/data_error.h"
#include "data/interval_source.h"
#include "data/record_source.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

template <typename T>
void require(bool ok, const char* field, const T& value, const char* allowed) {
  if (!ok) {
    throw DataError(fmt::format("LoaderConfig.{} = {} is invalid: {}", field, value, allowed));
  }
}

}  // namespace

void LoaderConfig::validate() const {
  require(!fasta.empty(), "fasta", "''", "a FASTA path is required");
  require(!intervals.empty(), "intervals", "''", "an interval or label file path is required");
  if (format != "records") parse_interval_format(format);
  require(format == "records" ? window >= 0 : window > 0, "window", window,
          "must be > 0 (>= 0 for records)");
  require(jitter >= 0, "jitter", jitter, "must be >= 0");
  require(rc_probability >= 0 && rc_probability <= 1, "rc_probability", rc_probability,
          "must be in [0, 1]");
  require(substitution_rate >= 0 && substitution_rate <= 1, "substitution_rate", substitution_rate,
          "must be in [0, 1]");
  require(batch_size > 0, "batch_size", batch_size, "must be > 0");
  require(!balanced || batch_size % 2 == 0, "batch_size", batch_size, "must be even when balanced");
  require(shard_count >= 1, "shard_count", shard_count, "must be >= 1");
  require(shard_rank >= 0 && shard_rank < shard_count, "shard_rank", shard_rank,
          "must be in [0, shard_count)");
  require(prefetch_depth >= 1, "prefetch_depth", prefetch_depth, "must be >= 1");
  require(threads >= 1, "threads", threads, "must be >= 1");
  for (const int c : label_columns) {
    require(c >= 4, "label_columns", c, "entries are 1-based columns >= 4");
  }
  require(!(format == "records" && streaming), "streaming", "true",
          "records are always held in memory");
  require(!(format == "records" && lower_mask), "lower_mask", "true", "not available for records");
  require(!signals.any() || format == "bed" || format == "narrowpeak", "format", format,
          "bigWig tracks (signals) need bed or narrowpeak intervals");
  require(signals.profile_length >= 0, "signals.profile_length", signals.profile_length,
          "must be >= 0 (0: the window)");
}

std::shared_ptr<SequenceSource> make_source(const LoaderConfig& config) {
  config.validate();
  FastaOptions fasta_options;
  fasta_options.index_path = config.fasta_index;
  if (!config.fasta_index.empty()) {
    // "x.fa.gz.fai" -> "x.fa.gz.gzi", next to the .fai like samtools places them.
    const std::string& fai = config.fasta_index;
    const bool has_suffix = fai.size() > 4 && fai.ends_with(".fai");
    fasta_options.gzi_path = (has_suffix ? fai.substr(0, fai.size() - 4) : fai) + ".gzi";
  }
  FastaReader reader(config.fasta, fasta_options);
  if (config.format == "records") {
    return std::make_shared<RecordSource>(reader, config.intervals, config.window, config.labels);
  }
  IntervalReadOptions read_options;
  read_options.format = parse_interval_format(config.format);
  read_options.label_columns = config.label_columns;
  read_options.policy = config.bad_intervals;
  read_options.labels = config.labels;
  read_options.read_labels = config.signals.targets != TargetSource::kCounts;
  IntervalSourceOptions source_options;
  source_options.window = config.window;
  source_options.max_shift = config.jitter;
  source_options.use_summit = config.use_summit;
  source_options.streaming = config.streaming;
  source_options.lower_mask = config.lower_mask;
  source_options.policy = config.bad_intervals;
  source_options.labels = config.labels;
  source_options.signals = config.signals;
  return std::make_shared<IntervalSource>(
      std::move(reader), read_intervals(config.intervals, read_options), source_options);
}

std::unique_ptr<DataLoader> make_loader(const LoaderConfig& config, BatchAllocator allocator) {
  LoaderOptions options;
  options.sampler.batch_size = config.batch_size;
  options.sampler.seed = config.seed;
  options.sampler.shuffle = config.shuffle;
  options.sampler.balanced = config.balanced;
  options.sampler.rank = config.shard_rank;
  options.sampler.world = config.shard_count;
  options.sampler.drop_last = config.drop_last;
  options.sampler.both_strands = config.both_strands;
  options.augment.max_shift = config.jitter;
  options.augment.rc_probability = config.both_strands ? 0.0 : config.rc_probability;
  options.augment.substitution_rate = config.substitution_rate;
  options.threads = config.threads;
  options.prefetch_depth = config.prefetch_depth;
  options.lower_mask = config.lower_mask;
  options.allocator = std::move(allocator);
  return std::make_unique<DataLoader>(make_source(config), std::move(options));
}

}  // namespace strand::data
