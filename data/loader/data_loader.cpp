// DataLoader: ordered, bounded, multi-threaded batch production with error propagation.
#include "data/loader/data_loader.h"

#include <algorithm>

#include "data/counter_rng.h"
#include "data/data_error.h"
#include "data/encoding.h"
#include "fmt/format.h"

namespace strand::data {

SampleAugment draw_augment(const AugmentOptions& options, uint64_t seed, uint64_t epoch,
                           int64_t index) {
  SampleAugment a;
  a.key = mix_key(seed, epoch, static_cast<uint64_t>(index));
  CounterRng rng(a.key);
  const uint64_t span = static_cast<uint64_t>(2 * options.jitter + 1);
  a.shift = static_cast<int64_t>(rng.below(span)) - options.jitter;
  a.reverse = rng.uniform() < options.rc_probability;
  return a;
}

namespace {

// A reverse track map must be a permutation of the tracks that undoes itself: reverse
// complementing twice gives the sample back.
void check_reverse_map(const std::vector<int64_t>& map, int64_t tracks, const char* what) {
  bool ok = static_cast<int64_t>(map.size()) == tracks;
  for (size_t i = 0; ok && i < map.size(); ++i) {
    ok = map[i] >= 0 && map[i] < tracks &&
         map[static_cast<size_t>(map[i])] == static_cast<int64_t>(i);
  }
  if (!ok) {
    throw DataError(fmt::format(
        "DataLoader: the source's reverse {} track map [{}] is not a list of {} track indices "
        "that reverse complementing twice maps back (pairs swap, other tracks map to themselves)",
        what, fmt::join(map, ", "), tracks));
  }
}

// rows: (tracks, length) of one sample. Reverse complement: track map[i] becomes track i with
// its positions reversed.
void reverse_tracks(float* rows, int64_t tracks, int64_t length, const std::vector<int64_t>& map,
                    std::vector<float>& scratch) {
  scratch.assign(rows, rows + tracks * length);
  for (int64_t i = 0; i < tracks; ++i) {
    const float* from = scratch.data() + i * length;
    float* to = rows + map[static_cast<size_t>(i)] * length;
    std::reverse_copy(from, from + length, to);
  }
}

}  // namespace

void apply_substitutions(double rate, uint64_t key, uint8_t* codes, int64_t length) {
  if (rate <= 0.0) return;
  CounterRng rng(splitmix64_hash(key ^ 0x5355425354ULL));
  for (int64_t i = 0; i < length; ++i) {
    if (rng.uniform() < rate && codes[i] < kNumBases) {
      codes[i] = static_cast<uint8_t>((codes[i] + 1 + rng.below(3)) % kNumBases);
    }
  }
}

DataLoader::DataLoader(std::shared_ptr<SequenceSource> source, LoaderOptions options)
    : source_(std::move(source)), options_(std::move(options)) {
  if (!source_) throw DataError("DataLoader: source is null");
  if (options_.loader_threads < 1 || options_.prefetch < 1) {
    throw DataError(fmt::format("DataLoader: loader_threads ({}) and prefetch ({}) must be >= 1",
                                options_.loader_threads, options_.prefetch));
  }
  const AugmentOptions& a = options_.augment;
  if (a.jitter < 0 || a.rc_probability < 0 || a.rc_probability > 1 || a.substitution_rate < 0 ||
      a.substitution_rate > 1) {
    throw DataError(
        fmt::format("DataLoader: need jitter >= 0 and probabilities in [0, 1], "
                    "got jitter {}, rc_probability {}, substitution_rate {}",
                    a.jitter, a.rc_probability, a.substitution_rate));
  }
  if (options_.lower_mask && !source_->has_lower_mask()) {
    throw DataError(
        "DataLoader: lower_mask requested but the source keeps no soft-mask "
        "information (enable lower_mask on the source)");
  }
  signal_sizes_ = {source_->profile_tracks(), source_->profile_length(), source_->control_tracks()};
  const int64_t l = source_->length();
  if (signal_sizes_.profile_tracks < 0 || signal_sizes_.control_tracks < 0 ||
      (signal_sizes_.profile_tracks > 0 &&
       (signal_sizes_.profile_length < 1 || signal_sizes_.profile_length > l ||
        (l - signal_sizes_.profile_length) % 2 != 0))) {
    throw DataError(fmt::format(
        "DataLoader: the source's signal tracks do not fit its {}-base samples: {} profile tracks "
        "of {} bases (need 1 to {} bases with an even difference, so that the window stays "
        "centred under reverse complement), {} control tracks",
        l, signal_sizes_.profile_tracks, signal_sizes_.profile_length, l,
        signal_sizes_.control_tracks));
  }
  profile_reverse_ = source_->reverse_profile_tracks();
  control_reverse_ = source_->reverse_control_tracks();
  check_reverse_map(profile_reverse_, signal_sizes_.profile_tracks, "profile");
  check_reverse_map(control_reverse_, signal_sizes_.control_tracks, "control");
  if (options_.sampler.balanced) {
    classes_.resize(static_cast<size_t>(source_->size()));
    for (int64_t i = 0; i < source_->size(); ++i) {
      classes_[static_cast<size_t>(i)] = static_cast<uint8_t>(sample_class(*source_, i));
    }
  }
  // The plan size does not depend on the epoch, so epoch 0 gives the step count and the
  // batch sizes.
  const EpochPlan plan = plan_epoch(source_->size(), classes_, options_.sampler, 0);
  steps_per_epoch_ = plan.steps;
  batch_sizes_ = plan.batch_sizes();
  window_ = std::max(options_.prefetch, options_.loader_threads);
  source_->prepare_workers(options_.loader_threads);
  workers_.reserve(static_cast<size_t>(options_.loader_threads));
  try {
    for (int w = 0; w < options_.loader_threads; ++w)
      workers_.emplace_back([this, w] { worker_loop(w); });
  } catch (const std::exception& error) {
    // Out of threads or memory (e.g. under ulimit -v): the workers already running must be
    // joined, or destroying their std::thread objects would call std::terminate.
    const size_t started = workers_.size();
    stop_and_join();
    throw DataError(fmt::format(
        "DataLoader: could not start worker thread {} of {} ({}); use fewer loader threads",
        started + 1, options_.loader_threads, error.what()));
  }
}

DataLoader::~DataLoader() { stop_and_join(); }

void DataLoader::stop_and_join() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void DataLoader::start_epoch(uint64_t epoch, int64_t first_step) {
  if (first_step < 0 || first_step > steps_per_epoch_) {
    throw DataError(fmt::format("DataLoader: cannot start epoch {} at step {} of {}", epoch,
                                first_step, steps_per_epoch_));
  }
  auto plan = std::make_shared<Plan>();
  plan->epoch_plan = plan_epoch(source_->size(), classes_, options_.sampler, epoch);
  plan->epoch = epoch;
  {
    std::lock_guard lock(mutex_);
    plan->generation = ++generation_;
    plan_ = std::move(plan);
    next_claim_ = first_step;
    next_deliver_ = first_step;
    ready_.clear();
  }
  work_cv_.notify_all();
}

std::optional<Batch> DataLoader::next() {
  bool started = false;
  {
    std::lock_guard lock(mutex_);
    started = plan_ != nullptr;
  }
  if (!started) start_epoch(0);
  std::unique_lock lock(mutex_);
  if (next_deliver_ >= plan_->epoch_plan.steps) return std::nullopt;
  const int64_t step = next_deliver_;
  ready_cv_.wait(lock, [&] { return ready_.count(step) != 0; });
  Result result = std::move(ready_.at(step));
  ready_.erase(step);
  ++next_deliver_;
  lock.unlock();
  work_cv_.notify_all();
  if (result.error) std::rethrow_exception(result.error);
  return std::move(result.batch);
}

void DataLoader::worker_loop(int worker) {
  while (true) {
    std::shared_ptr<const Plan> plan;
    int64_t step = 0;
    {
      std::unique_lock lock(mutex_);
      work_cv_.wait(lock, [&] {
        return stop_ || (plan_ && next_claim_ < plan_->epoch_plan.steps &&
                         next_claim_ < next_deliver_ + window_);
      });
      if (stop_) return;
      plan = plan_;
      step = next_claim_++;
    }
    Result result;
    try {
      result.batch = build_batch(*plan, step, worker);
    } catch (...) {
      result.error = std::current_exception();
    }
    if (stop_) return;
    {
      std::lock_guard lock(mutex_);
      if (plan->generation != generation_) continue;  // a newer epoch replaced this plan
      ready_.emplace(step, std::move(result));
    }
    ready_cv_.notify_all();
  }
}

Batch DataLoader::build_batch(const Plan& plan, int64_t step, int worker) const {
  const EpochPlan& p = plan.epoch_plan;
  const int64_t begin = p.batch_begin(step);
  const int64_t rows = p.batch_end(step) - begin;
  const int64_t l = source_->length();
  const int64_t t = source_->num_targets();
  const int64_t s = signal_sizes_.profile_tracks;
  const int64_t lp = signal_sizes_.profile_length;
  const int64_t sc = signal_sizes_.control_tracks;
  Batch batch = allocate_batch(rows, l, t, options_.lower_mask, options_.allocator, signal_sizes_);
  batch.epoch = plan.epoch;
  batch.step = step;
  const uint64_t seed = options_.sampler.seed;
  std::vector<float> scratch;  // one sample's tracks while they are reordered
  for (int64_t r = 0; r < rows; ++r) {
    if (stop_) break;  // shutting down: the batch is discarded
    const PlanItem item = p.item(begin + r);
    SampleAugment a = draw_augment(options_.augment, seed, plan.epoch, item.index);
    if (item.strand != ItemStrand::kRandom) a.reverse = item.strand == ItemStrand::kReverse;
    uint8_t* codes = batch.codes + r * l;
    uint8_t* lower = batch.lower_mask != nullptr ? batch.lower_mask + r * l : nullptr;
    source_->fetch(item.index, a.shift, codes, lower, worker);
    if (a.reverse) reverse_complement(codes, static_cast<size_t>(l), lower);
    apply_substitutions(options_.augment.substitution_rate, a.key, codes, l);
    if (s > 0 || sc > 0) {
      float* profile = s > 0 ? batch.profile + r * s * lp : nullptr;   // (S, Lp)
      float* control = sc > 0 ? batch.control + r * sc * l : nullptr;  // (Sc, L)
      source_->signals(item.index, a.shift, profile, control, worker);
      if (a.reverse && profile != nullptr)
        reverse_tracks(profile, s, lp, profile_reverse_, scratch);
      if (a.reverse && control != nullptr)
        reverse_tracks(control, sc, l, control_reverse_, scratch);
    }
    source_->labels_at(item.index, a.shift, batch.labels + r * t, batch.label_mask + r * t, worker);
    batch.sample_index[r] = item.index;
    batch.reverse[r] = a.reverse ? 1 : 0;
  }
  return batch;
}

}  // namespace strand::data
