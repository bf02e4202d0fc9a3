// IntervalSignals: bigWig reads of interval windows and their count labels.
#include "data/signals/interval_signals.h"

#include <fmt/format.h>

#include <numeric>
#include <unordered_map>

#include "data/data_error.h"
#include "data/window.h"

namespace strand::data {

IntervalSignals::IntervalSignals(const SignalOptions& options, int64_t window,
                                 std::vector<Contig> contigs, std::vector<SignalWindow> windows,
                                 const IntervalSet& intervals, const std::string& fasta)
    : window_(window),
      output_length_(options.profile_length == 0 ? window : options.profile_length),
      contigs_(std::move(contigs)),
      windows_(std::move(windows)) {
  if (output_length_ < 1 || output_length_ > window_ || (window_ - output_length_) % 2 != 0) {
    throw DataError(fmt::format(
        "profile length {} does not fit the {}-base window: it must be 1 to {} bases with an even "
        "difference to the window, so that the output window stays centred under reverse "
        "complement",
        options.profile_length, window_, window_));
  }
  profile_ = TrackSet(parse_track_groups(options.profile_bigwigs, "profile bigWigs"));
  control_ = TrackSet(parse_track_groups(options.control_bigwigs, "control bigWigs"));
  if (options.targets == TargetSource::kCounts) {
    if (options.count_entries().empty()) {
      throw DataError(
          "count targets need bigWig tracks: give count bigWigs, or profile bigWigs whose sums "
          "become the counts");
    }
    counts_ = TrackSet(parse_track_groups(options.count_entries(), "count bigWigs"));
    count_tasks_ = counts_.groups();
  }
  // Every contig the windows use must be in every bigWig with the FASTA's length; the first
  // interval on it is named in the error.
  std::unordered_map<int, int64_t> first_line;
  for (size_t i = 0; i < windows_.size(); ++i) {
    first_line.emplace(windows_[i].contig, intervals.intervals[i].line);
  }
  for (const auto& [contig, line] : first_line) {
    const Contig& c = contigs_[static_cast<size_t>(contig)];
    const std::string used_by = fmt::format("line {} of '{}'", line, intervals.path);
    for (const TrackSet* set : {&profile_, &control_, &counts_}) {
      set->check_contig(c.name, c.length, used_by, fasta);
    }
  }
  if (count_tasks_ == 0) return;
  const auto t = static_cast<size_t>(count_tasks_);
  count_labels_.resize(windows_.size() * t);
  count_mask_.resize(windows_.size() * t);
  for (size_t i = 0; i < windows_.size(); ++i) {
    compute_counts(static_cast<int64_t>(i), 0, count_labels_.data() + i * t,
                   count_mask_.data() + i * t, 0);
  }
}

std::vector<std::string> IntervalSignals::count_task_names() const {
  std::vector<std::string> names;
  for (const TrackGroup& group : counts_.track_groups()) names.push_back(group.name);
  return names;
}

void IntervalSignals::prepare_workers(int n) {
  profile_.prepare_workers(n);
  control_.prepare_workers(n);
  counts_.prepare_workers(n);
}

int64_t IntervalSignals::output_start(int64_t index, int64_t shift) const {
  const SignalWindow& w = windows_[static_cast<size_t>(index)];
  const int64_t contig_length = contigs_[static_cast<size_t>(w.contig)].length;
  return window_start(w.centre, window_, shift, contig_length) + (window_ - output_length_) / 2;
}

void IntervalSignals::signals(int64_t index, int64_t shift, float* profile, float* control,
                              int worker) const {
  const SignalWindow& w = windows_[static_cast<size_t>(index)];
  const Contig& contig = contigs_[static_cast<size_t>(w.contig)];
  const int64_t start = window_start(w.centre, window_, shift, contig.length);
  if (profile != nullptr && profile_.tracks() > 0) {
    profile_.read(contig.name, contig.length, start + (window_ - output_length_) / 2,
                  output_length_, profile, worker);
  }
  if (control != nullptr && control_.tracks() > 0) {
    control_.read(contig.name, contig.length, start, window_, control, worker);
  }
}

void IntervalSignals::compute_counts(int64_t index, int64_t shift, float* out, uint8_t* mask,
                                     int worker) const {
  const SignalWindow& w = windows_[static_cast<size_t>(index)];
  const Contig& contig = contigs_[static_cast<size_t>(w.contig)];
  const int64_t start = output_start(index, shift);
  std::fill(out, out + count_tasks_, 0.0F);
  // An output window running past the contig's end (a contig shorter than the window) has no
  // count to learn from.
  if (start + output_length_ > contig.length) {
    std::fill(mask, mask + count_tasks_, uint8_t{0});
    return;
  }
  std::vector<float> values(static_cast<size_t>(counts_.tracks() * output_length_));
  counts_.read(contig.name, contig.length, start, output_length_, values.data(), worker);
  const std::vector<int64_t>& group = counts_.group_of_track();
  for (int64_t track = 0; track < counts_.tracks(); ++track) {
    const float* row = values.data() + track * output_length_;
    // Summed in double: a window may hold millions of reads.
    const double sum = std::accumulate(row, row + output_length_, 0.0);
    out[group[static_cast<size_t>(track)]] += static_cast<float>(sum);
  }
  std::fill(mask, mask + count_tasks_, uint8_t{1});
}

void IntervalSignals::labels(int64_t index, float* out, uint8_t* mask) const {
  const auto t = static_cast<size_t>(count_tasks_);
  const size_t offset = static_cast<size_t>(index) * t;
  std::copy_n(count_labels_.begin() + static_cast<std::ptrdiff_t>(offset), t, out);
  std::copy_n(count_mask_.begin() + static_cast<std::ptrdiff_t>(offset), t, mask);
}

void IntervalSignals::labels_at(int64_t index, int64_t shift, float* out, uint8_t* mask,
                                int worker) const {
  if (shift == 0) {
    labels(index, out, mask);
    return;
  }
  compute_counts(index, shift, out, mask, worker);
}

}  // namespace strand::data
