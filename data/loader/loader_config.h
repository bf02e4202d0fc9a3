// LoaderConfig: every knob of a genomic data loader in one struct, plus the factory that
// builds the source and loader from it (what `strand train --fasta ... --intervals ...` uses).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/value_range.h"
#include "data/intervals/intervals.h"
#include "data/intervals/negatives.h"
#include "data/labels.h"
#include "data/loader/batch.h"
#include "data/loader/data_loader.h"
#include "data/signals/signal_tracks.h"
#include "data/sources/sequence_source.h"

namespace strand::data {

/// The largest window, jitter, profile length and simulated sequence length: far beyond any
/// model's input, and small enough that no size computed from them overflows.
inline constexpr int64_t kMaxSequenceLength = 10'000'000;
/// The largest batch.
inline constexpr int64_t kMaxBatchSize = int64_t{1} << 20;
/// The most batches a loader prepares ahead.
inline constexpr int64_t kMaxPrefetch = 1024;

/// The values LoaderConfig's numbers accept, declared once: LoaderConfig::validate() checks
/// them, and the application layer's config key table (app/config_keys.cpp) checks config files and
/// flags against the same declarations.
namespace loader_ranges {
inline constexpr IntRange kWindow{1, kMaxSequenceLength};
/// Records: 0 means the records' common length.
inline constexpr IntRange kRecordsWindow{0, kMaxSequenceLength};
inline constexpr IntRange kJitter{0, kMaxSequenceLength};
/// rc_probability and substitution_rate.
inline constexpr RealRange kProbability{0.0, 1.0};
inline constexpr IntRange kBatchSize{1, kMaxBatchSize};
inline constexpr IntRange kPrefetch{1, kMaxPrefetch};
inline constexpr IntRange kLoaderThreads{.lo = 1, .up_to_thread_cap = true};
inline constexpr RealRange kNegativesRatio{0.0, kMaxNegativesRatio};
/// 0: the window.
inline constexpr IntRange kProfileLength{0, kMaxSequenceLength};
}  // namespace loader_ranges

/// What a genomic data loader reads and how it augments and feeds its samples: every setting
/// but one loader's batching, order, seed and shard (LoaderConfig adds those). Its field names are
/// the names of the settings everywhere: the config keys data.jitter, data.loader_threads,
/// data.prefetch, ... of a run's files data and the keyword arguments of the Python package's
/// strand.data.Loader bind to these fields (app/config_keys.cpp), so their defaults are these.
struct LoaderSettings {
  std::string fasta;        ///< reference FASTA, plain or BGZF
  std::string fasta_index;  ///< .fai location if not next to the FASTA (e.g. read-only dir)
  std::string intervals;    ///< BED / narrowPeak / DREAM TSV, or the label TSV for kRecords
  IntervalFormat format = IntervalFormat::kBed;  ///< the format of `intervals`
  std::vector<int> label_columns;                ///< 1-based; empty: the format's default
  /// Replace the file's task names, one per label column (checked); empty: the file's (a
  /// header's) names, else task_0, task_1, ...
  std::vector<std::string> task_names;
  /// false: intervals without labels (T = 0), e.g. a BED3 or BED6 to predict on.
  bool labelled = true;
  /// > 0: the intervals are peaks, labelled 1 whatever their columns, and GC-matched negatives
  /// (data/intervals/negatives.h; window, seed and blacklist below) labelled 0 are added, this many
  /// per peak. The one task is named by task_names, else after the interval file's stem.
  double negatives_ratio = 0.0;
  std::string blacklist;  ///< BED of regions negatives avoid (with negatives_ratio); optional
  /// What a valid label is (kBinary for binary cross-entropy) and whether a file whose every
  /// label is missing is an error; checked line by line when the file is read.
  LabelOptions labels;
  BadIntervalPolicy bad_intervals = BadIntervalPolicy::kError;  ///< invalid intervals
  int64_t window = 1000;           ///< L; for kRecords 0 means the common record length
  bool use_summit = true;          ///< narrowPeak: centre on the summit
  int64_t jitter = 0;              ///< J, the largest random shift of a training window
  double rc_probability = 0.0;     ///< in [0, 1]; ignored (0) with both_strands
  bool both_strands = false;       ///< evaluation: every sample forward and reverse complemented
  double substitution_rate = 0.0;  ///< per-base substitution probability, in [0, 1]
  bool balanced = false;           ///< SamplerOptions::balanced
  int64_t prefetch = 2;            ///< LoaderOptions::prefetch
  int64_t loader_threads = 2;      ///< LoaderOptions::loader_threads
  bool streaming = false;          ///< IntervalSourceOptions::streaming (not for records)
  bool lower_mask = false;         ///< fill Batch::lower_mask (not for records)
  /// bigWig tracks (profile targets, control inputs, count labels); bed and narrowpeak only.
  SignalOptions signals;

  /// Throws DataError naming the first offending field, its value and what is allowed: the
  /// ranges of loader_ranges, and the rules between fields (a jitter of at most half the window,
  /// jitter_problem(); records of window 0 are checked once their length is known, by
  /// make_loader()).
  void validate() const;
};

/// Every setting of one genomic data loader (see make_source() and make_loader()): its settings
/// and its batching, order, seed and shard.
struct LoaderConfig : LoaderSettings {
  int64_t batch_size = 64;  ///< B (even when balanced)
  bool shuffle = true;      ///< shuffle the order every epoch
  uint64_t seed = 0;        ///< seeds shuffling, augmentation and negatives
  int shard_rank = 0;       ///< this rank, in [0, shard_count)
  int shard_count = 1;      ///< number of ranks sharing the data
  bool drop_last = false;   ///< SamplerOptions::drop_last

  /// LoaderSettings::validate(), and the batch and shard (an even batch when balanced).
  void validate() const;
};

/// Why `jitter` is too large for windows of `window` bases ("more than half the 100-base window
/// (50): ..."): a larger shift moves the interval's centre out of its window, whose labels (and
/// profiles) would no longer describe the sequence; empty when it fits. `window` 0 (records of
/// a length not yet known) passes.
std::string jitter_problem(int64_t jitter, int64_t window);

/// Builds the source described by `config` (after validate()).
std::shared_ptr<SequenceSource> make_source(const LoaderConfig& config);

/// The intervals `config` describes, read and validated against `reader` (the FASTA of
/// `config`), with GC-matched negatives added when negatives_ratio > 0 and task_names applied.
IntervalSet read_interval_set(const LoaderConfig& config, const FastaReader& reader);

/// The task names make_source(config) would give, read from the head of the files only
/// (config.task_names; the peak file's stem with negatives; a header; else task_0, ...).
std::vector<std::string> read_task_names(const LoaderConfig& config);

/// Opens config.fasta with its index options (fasta_index).
FastaReader open_fasta(const LoaderConfig& config);

/// The loader settings of `config` (sampler, augmentation, workers): what make_loader() gives the
/// DataLoader; `allocator` is the batch buffer hook.
LoaderOptions loader_options(const LoaderConfig& config, BatchAllocator allocator = {});

/// Builds source and loader; the allocator is the batch buffer hook. Throws DataError when
/// records of window 0 turn out shorter than twice the jitter.
std::unique_ptr<DataLoader> make_loader(const LoaderConfig& config, BatchAllocator allocator = {});

}  // namespace strand::data
