// Dataset statistics over the exact windows the loader would give the model.
#include "cli/inspect_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "data/sources/interval_source.h"

namespace strand::cli {

using app::build_run_data;
using app::DataSplit;
using app::RunConfig;
using app::RunData;
using app::validate_config;

namespace {

// Sums of every profile and control track over the samples' unshifted windows.
std::vector<TrackStats> track_stats(const DataSplit& split) {
  const data::SequenceSource& source = *split.source;
  const int64_t s = source.profile_tracks(), lp = source.profile_length();
  const int64_t sc = source.control_tracks(), l = source.length();
  std::vector<TrackStats> tracks;
  if (s == 0 && sc == 0) return tracks;
  const auto* intervals = dynamic_cast<const data::IntervalSource*>(&source);
  std::vector<std::string> names;
  if (intervals != nullptr && intervals->signal_tracks() != nullptr) {
    names = intervals->signal_tracks()->profile().track_names();
    const std::vector<std::string> control = intervals->signal_tracks()->control().track_names();
    names.insert(names.end(), control.begin(), control.end());
  }
  for (int64_t t = 0; t < s + sc; ++t) {
    const std::string name = t < static_cast<int64_t>(names.size())
                                 ? names[static_cast<size_t>(t)]
                                 : fmt::format("track{}", t < s ? t : t - s);
    tracks.push_back({t < s ? "profile" : "control", name, 0.0, 0.0});
  }
  std::vector<float> profile(static_cast<size_t>(s * lp)), control(static_cast<size_t>(sc * l));
  for (int64_t i = 0; i < source.size(); ++i) {
    source.signals(i, 0, s > 0 ? profile.data() : nullptr, sc > 0 ? control.data() : nullptr, 0);
    for (int64_t t = 0; t < s; ++t) {
      const float* row = profile.data() + t * lp;
      tracks[static_cast<size_t>(t)].total += std::accumulate(row, row + lp, 0.0);
    }
    for (int64_t t = 0; t < sc; ++t) {
      const float* row = control.data() + t * l;
      tracks[static_cast<size_t>(s + t)].total += std::accumulate(row, row + l, 0.0);
    }
  }
  for (TrackStats& track : tracks) {
    track.mean_per_window =
        source.size() > 0 ? track.total / static_cast<double>(source.size()) : 0.0;
  }
  return tracks;
}

}  // namespace

SplitStats split_stats(const DataSplit& split) {
  const data::SequenceSource& source = *split.source;
  SplitStats stats;
  stats.name = split.name;
  stats.count = source.size();
  stats.targets = source.num_targets();
  stats.window = source.length();
  std::vector<double> label_sum(static_cast<size_t>(stats.targets), 0.0);
  std::vector<int64_t> label_count(static_cast<size_t>(stats.targets), 0);
  std::vector<uint8_t> codes(static_cast<size_t>(stats.window));
  std::vector<float> labels(static_cast<size_t>(stats.targets));
  std::vector<uint8_t> mask(static_cast<size_t>(stats.targets));
  int64_t base_counts[5] = {0, 0, 0, 0, 0};
  for (int64_t i = 0; i < stats.count; ++i) {
    source.fetch(i, 0, codes.data(), nullptr, 0);
    for (const uint8_t code : codes) ++base_counts[std::min<uint8_t>(code, 4)];
    source.labels(i, labels.data(), mask.data());
    for (int64_t t = 0; t < stats.targets; ++t) {
      if (!mask[static_cast<size_t>(t)]) continue;
      label_sum[static_cast<size_t>(t)] += labels[static_cast<size_t>(t)];
      ++label_count[static_cast<size_t>(t)];
    }
  }
  for (int64_t t = 0; t < stats.targets; ++t) {
    const auto k = static_cast<size_t>(t);
    stats.mean_label.push_back(label_count[k] > 0 ? label_sum[k] / label_count[k] : 0.0);
  }
  const int64_t acgt = base_counts[0] + base_counts[1] + base_counts[2] + base_counts[3];
  const int64_t all = acgt + base_counts[4];
  stats.gc_fraction = acgt > 0 ? static_cast<double>(base_counts[1] + base_counts[2]) / acgt : 0.0;
  stats.n_fraction = all > 0 ? static_cast<double>(base_counts[4]) / all : 0.0;
  stats.tracks = track_stats(split);
  if (!split.raw_lengths.empty()) {
    const auto [lo, hi] = std::minmax_element(split.raw_lengths.begin(), split.raw_lengths.end());
    stats.min_length = *lo;
    stats.max_length = *hi;
  }
  return stats;
}

namespace {

// Splits list their mean label per task up to this many tasks.
constexpr size_t kListedTasks = 4;

}  // namespace

std::vector<SplitStats> run_inspect(const RunConfig& config, std::ostream& out) {
  validate_config(config);
  const RunData data = build_run_data(config);
  out << "data: " << data.description << "\n";
  const std::vector<std::string> tasks = data.train.source->task_names();
  out << fmt::format("tasks ({}): {}\n", tasks.size(), fmt::join(tasks, ", "));
  out << fmt::format("{:<12}{:>9} {:>13}{:>9}{:>10}{:>18}{:>9}\n", "split", "count", "mean label",
                     "GC", "N", "length range", "window");
  std::vector<const DataSplit*> splits = {&data.train};
  if (data.validation) splits.push_back(&*data.validation);
  if (data.test) splits.push_back(&*data.test);
  std::vector<SplitStats> all;
  for (const DataSplit* split : splits) {
    SplitStats s = split_stats(*split);
    // Per task up to kListedTasks tasks, else their mean (hundreds of tasks make no column).
    std::vector<std::string> means;
    for (const double m : s.mean_label) means.push_back(fmt::format("{:.4f}", m));
    if (means.size() > kListedTasks) {
      double sum = 0;
      for (const double m : s.mean_label) sum += m;
      means = {fmt::format("{:.4f} (mean of {})", sum / static_cast<double>(means.size()),
                           means.size())};
    }
    out << fmt::format("{:<12}{:>9} {:>13}{:>9.4f}{:>10.6f}{:>18}{:>9}\n", s.name, s.count,
                       fmt::format("{}", fmt::join(means, ",")), s.gc_fraction, s.n_fraction,
                       fmt::format("{}-{}", s.min_length, s.max_length), s.window);
    all.push_back(std::move(s));
  }
  if (std::any_of(all.begin(), all.end(), [](const SplitStats& s) { return !s.tracks.empty(); })) {
    out << fmt::format(
        "bigWig tracks: sums over each sample's unshifted window (profile: the {}-base output "
        "window; control: the whole window)\n",
        data.train.source->profile_length());
    out << fmt::format("{:<12}{:<9}{:<32}{:>16}{:>14}\n", "split", "kind", "track", "total",
                       "mean/window");
    for (const SplitStats& s : all) {
      for (const TrackStats& t : s.tracks) {
        out << fmt::format("{:<12}{:<9}{:<32}{:>16.1f}{:>14.3f}\n", s.name, t.kind, t.name, t.total,
                           t.mean_per_window);
      }
    }
  }
  return all;
}

}  // namespace strand::cli
