// DataLoader: worker threads build augmented batches from a SequenceSource into a bounded,
// ordered queue.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "data/loader/batch.h"
#include "data/loader/sampler.h"
#include "data/sources/sequence_source.h"

namespace strand::data {

/// Per-sample augmentation. Every draw comes from CounterRng(mix_key(seed, epoch, index)) in
/// a fixed order (shift, strand, substitutions), so a sample's augmentation depends only on
/// (seed, epoch, sample index).
struct AugmentOptions {
  int64_t jitter = 0;            ///< J: the shift is uniform in [-J, J], kept inside the contig
  double rc_probability = 0.0;   ///< probability of reverse complementing (labels unchanged)
  double substitution_rate = 0;  ///< per-base probability of replacing A/C/G/T by another base
};

/// Settings of a DataLoader.
struct LoaderOptions {
  SamplerOptions sampler;    ///< which samples each batch holds, per epoch and rank
  AugmentOptions augment;    ///< per-sample augmentation
  int loader_threads = 1;    ///< worker threads (>= 1)
  int prefetch = 2;          ///< batches built ahead of the consumer: max(prefetch, loader_threads)
  bool lower_mask = false;   ///< fill Batch::lower_mask (source must support it)
  BatchAllocator allocator;  ///< batch buffer allocation hook (pinned memory later)
};

/// Applies AugmentOptions to one fetched sample: writes the shift to use before fetching and
/// whether to reverse complement; substitutions are applied by apply_substitutions().
struct SampleAugment {
  int64_t shift = 0;     ///< window shift in [-jitter, jitter]
  bool reverse = false;  ///< reverse complement the sample
  uint64_t key = 0;      ///< seeds the substitution stream (apply_substitutions)
};
/// Draws a sample's augmentation from CounterRng(mix_key(seed, epoch, index)).
SampleAugment draw_augment(const AugmentOptions& options, uint64_t seed, uint64_t epoch,
                           int64_t index);
/// Replaces each A/C/G/T code of `codes` with probability `rate` by one of the three other
/// bases, with draws seeded by `key` (`length` codes).
void apply_substitutions(double rate, uint64_t key, uint8_t* codes, int64_t length);

/// Batches come out of next() in the plan's order whatever the thread count. A worker's
/// exception is rethrown by next() for the batch it was building; the destructor stops and
/// joins the workers promptly, also mid-epoch.
class DataLoader {
 public:
  /// Starts the worker threads. Throws DataError for a null source, loader_threads or
  /// prefetch < 1, jitter < 0, probabilities outside [0, 1], a lower_mask request
  /// the source cannot serve, signal tracks the batch cannot hold (a profile window longer
  /// than the sample or off its centre, reverse track maps that are not involutions of the
  /// tracks), a sampler plan that cannot give every rank a batch, or a worker thread that cannot
  /// be started (the ones already started are stopped and joined first).
  ///
  /// Signal tracks follow the codes: the same shift, and under reverse complement every
  /// track's positions reversed and track i moved to reverse_*_tracks()[i] (a strand pair
  /// swaps). Labels come from SequenceSource::labels_at() with the sample's shift.
  DataLoader(std::shared_ptr<SequenceSource> source, LoaderOptions options);
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  /// Starts (or restarts) epoch `epoch` at step `first_step` (resuming part-way through it; the
  /// earlier steps' batches are never built): discards batches of the previous plan.
  void start_epoch(uint64_t epoch, int64_t first_step = 0);
  /// Next batch of the current epoch (epoch 0 if none was started); nullopt at its end.
  std::optional<Batch> next();
  /// Batches per epoch for this rank (the same for every epoch and rank).
  int64_t steps_per_epoch() const { return steps_per_epoch_; }
  /// The distinct sizes of an epoch's batches (the same every epoch): the first batch's, then
  /// the last one's where it is smaller.
  const std::vector<int64_t>& batch_sizes() const { return batch_sizes_; }
  /// The source the batches are built from.
  const SequenceSource& source() const { return *source_; }

 private:
  struct Plan {
    EpochPlan epoch_plan;
    uint64_t epoch = 0;
    uint64_t generation = 0;
  };
  struct Result {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  void worker_loop(int worker);
  void stop_and_join();
  Batch build_batch(const Plan& plan, int64_t step, int worker) const;

  std::shared_ptr<SequenceSource> source_;
  LoaderOptions options_;
  SignalSizes signal_sizes_;              // the source's profile and control tracks
  std::vector<int64_t> profile_reverse_;  // (S) reverse_profile_tracks()
  std::vector<int64_t> control_reverse_;  // (Sc) reverse_control_tracks()
  std::vector<uint8_t> classes_;
  int64_t steps_per_epoch_ = 0;
  std::vector<int64_t> batch_sizes_;
  int window_ = 1;

  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable ready_cv_;
  std::shared_ptr<const Plan> plan_;  // guarded by mutex_
  int64_t next_claim_ = 0;
  int64_t next_deliver_ = 0;
  uint64_t generation_ = 0;
  std::map<int64_t, Result> ready_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

}  // namespace strand::data
