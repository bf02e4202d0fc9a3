// IntervalSource: in-memory and streaming windows around intervals of an indexed FASTA.
#include "data/sources/interval_source.h"

#include <algorithm>

#include "data/data_error.h"
#include "data/loader/available_memory.h"
#include "data/window.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

constexpr uint8_t kLowerBit = 0x08;  // in-memory codes: code | kLowerBit for soft-masked bases

}  // namespace

IntervalSource::IntervalSource(FastaReader reader, IntervalSet intervals,
                               const IntervalSourceOptions& options)
    : reader_(std::move(reader)), intervals_(std::move(intervals)), options_(options) {
  if (options_.window <= 0 || options_.jitter < 0) {
    throw DataError(fmt::format("IntervalSource: window {} must be > 0 and jitter {} >= 0",
                                options_.window, options_.jitter));
  }
  // Count labels replace the file's: the file was read without labels, so none can be valid.
  LabelOptions labels = options_.labels;
  if (options_.signals.targets == TargetSource::kCounts) labels.require_valid = false;
  validate_intervals(intervals_, reader_.contigs(), reader_.path(), options_.policy, labels);
  const int64_t l = options_.window;
  const int64_t j = options_.jitter;
  samples_.reserve(intervals_.intervals.size());
  for (const Interval& iv : intervals_.intervals) {
    Sample s;
    s.contig = reader_.contig_id(iv.contig);
    s.contig_length = reader_.contigs()[static_cast<size_t>(s.contig)].length;
    s.centre = options_.use_summit && iv.summit >= 0 ? iv.summit : (iv.start + iv.end) / 2;
    if (!options_.streaming) {
      // Every window fetch() can return lies inside [lo, hi) since window_start is monotone.
      const int64_t lo = window_start(s.centre, l, -j, s.contig_length);
      const int64_t hi =
          std::min(s.contig_length, window_start(s.centre, l, j, s.contig_length) + l);
      s.slice_start = lo;
      s.slice_length = hi - lo;
      s.offset = pool_.size();
    }
    samples_.push_back(s);
  }
  if (options_.signals.any()) {
    std::vector<SignalWindow> windows;
    for (const Sample& s : samples_) windows.push_back({s.contig, s.centre});
    signals_ = std::make_unique<IntervalSignals>(options_.signals, l, reader_.contigs(),
                                                 std::move(windows), intervals_, reader_.path());
  }
  if (options_.streaming) return;
  size_t total = 0;
  for (const Sample& s : samples_) total += static_cast<size_t>(s.slice_length);
  // Refused with its size before allocating, rather than std::bad_alloc or the OOM killer.
  require_memory(static_cast<double>(total),
                 fmt::format("IntervalSource: the in-memory windows of {} intervals ({} bases plus "
                             "{} of jitter flank per side each)",
                             samples_.size(), l, j),
                 "use streaming mode (LoaderConfig::streaming; strand train --streaming) to read "
                 "each window from the FASTA when it is needed");
  pool_.resize(total);
  std::vector<uint8_t> mask;
  size_t offset = 0;
  for (Sample& s : samples_) {
    s.offset = offset;
    uint8_t* dst = pool_.data() + offset;
    const auto n = static_cast<size_t>(s.slice_length);
    const std::string& name = reader_.contigs()[static_cast<size_t>(s.contig)].name;
    if (options_.lower_mask) {
      mask.resize(n);
      reader_.fetch_codes(name, s.slice_start, s.slice_start + s.slice_length, dst, mask.data());
      for (size_t i = 0; i < n; ++i) dst[i] |= mask[i] != 0 ? kLowerBit : 0;
    } else {
      reader_.fetch_codes(name, s.slice_start, s.slice_start + s.slice_length, dst);
    }
    offset += n;
  }
}

void IntervalSource::prepare_workers(int n) {
  if (signals_) signals_->prepare_workers(n);
  if (!options_.streaming) return;
  worker_readers_.clear();
  for (int i = 0; i < n; ++i) worker_readers_.push_back(reader_.clone());
}

void IntervalSource::fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
                           int worker) const {
  const Sample& s = samples_[static_cast<size_t>(index)];
  const int64_t l = options_.window;
  if (shift < -options_.jitter || shift > options_.jitter) {
    throw DataError(
        fmt::format("IntervalSource: shift {} exceeds the jitter {}", shift, options_.jitter));
  }
  const int64_t start = window_start(s.centre, l, shift, s.contig_length);
  if (options_.streaming) {
    if (worker < 0 || static_cast<size_t>(worker) >= worker_readers_.size()) {
      throw DataError(
          fmt::format("IntervalSource: worker {} has no file handle; call "
                      "prepare_workers() first",
                      worker));
    }
    const int64_t end = std::min(start + l, s.contig_length);
    const std::string& name = reader_.contigs()[static_cast<size_t>(s.contig)].name;
    worker_readers_[static_cast<size_t>(worker)].fetch_codes(name, start, end, codes, lower_mask);
    std::fill(codes + (end - start), codes + l, kCodeN);
    if (lower_mask != nullptr) std::fill(lower_mask + (end - start), lower_mask + l, uint8_t{0});
    return;
  }
  const uint8_t* slice = pool_.data() + s.offset;
  copy_window(slice, s.slice_length, start - s.slice_start, l, codes);
  if (!options_.lower_mask) {
    if (lower_mask != nullptr) std::fill_n(lower_mask, l, uint8_t{0});
    return;
  }
  for (int64_t i = 0; i < l; ++i) {
    if (lower_mask != nullptr) lower_mask[i] = (codes[i] & kLowerBit) != 0 ? 1 : 0;
    codes[i] &= static_cast<uint8_t>(~kLowerBit);
  }
}

Interval IntervalSource::window(int64_t index) const {
  const Sample& s = samples_[static_cast<size_t>(index)];
  Interval out;
  out.contig = reader_.contigs()[static_cast<size_t>(s.contig)].name;
  out.start = window_start(s.centre, options_.window, 0, s.contig_length);
  out.end = std::min(out.start + options_.window, s.contig_length);
  out.line = intervals_.intervals[static_cast<size_t>(index)].line;
  return out;
}

int64_t IntervalSource::num_targets() const {
  return signals_ && signals_->count_labels() ? signals_->count_tasks() : intervals_.num_targets();
}

std::vector<std::string> IntervalSource::task_names() const {
  return signals_ && signals_->count_labels() ? signals_->count_task_names()
                                              : intervals_.target_names;
}

void IntervalSource::labels(int64_t index, float* out, uint8_t* mask) const {
  if (signals_ && signals_->count_labels()) {
    signals_->labels(index, out, mask);
    return;
  }
  const auto t = static_cast<size_t>(num_targets());
  const auto offset = static_cast<std::ptrdiff_t>(static_cast<size_t>(index) * t);
  std::copy_n(intervals_.labels.begin() + offset, t, out);
  std::copy_n(intervals_.label_mask.begin() + offset, t, mask);
}

void IntervalSource::labels_at(int64_t index, int64_t shift, float* out, uint8_t* mask,
                               int worker) const {
  if (signals_ && signals_->count_labels()) {
    signals_->labels_at(index, shift, out, mask, worker);
    return;
  }
  labels(index, out, mask);
}

int64_t IntervalSource::profile_tracks() const { return signals_ ? signals_->profile_tracks() : 0; }

int64_t IntervalSource::profile_length() const {
  return signals_ && signals_->profile_tracks() > 0 ? signals_->profile_length() : 0;
}

int64_t IntervalSource::control_tracks() const { return signals_ ? signals_->control_tracks() : 0; }

void IntervalSource::signals(int64_t index, int64_t shift, float* profile, float* control,
                             int worker) const {
  if (shift < -options_.jitter || shift > options_.jitter) {
    throw DataError(
        fmt::format("IntervalSource: shift {} exceeds the jitter {}", shift, options_.jitter));
  }
  if (signals_) signals_->signals(index, shift, profile, control, worker);
}

std::vector<int64_t> IntervalSource::reverse_profile_tracks() const {
  return signals_ ? signals_->reverse_profile_tracks() : std::vector<int64_t>{};
}

std::vector<int64_t> IntervalSource::reverse_control_tracks() const {
  return signals_ ? signals_->reverse_control_tracks() : std::vector<int64_t>{};
}

}  // namespace strand::data
