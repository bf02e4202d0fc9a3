// label_peak_tasks: peak windows of several files merged and labelled per file, plus GC-matched
// negatives.
#include "data/intervals/peak_tasks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "data/data_error.h"
#include "data/window.h"

namespace strand::data {
namespace {

// A peak's window and where it came from.
struct PeakWindow {
  int contig = 0;
  int64_t start = 0, end = 0, centre = 0;
  size_t task = 0;  // the file of the peak
};

// Peak (start, end) pairs: (tasks, contigs, peaks of that task on that contig).
using PeaksByContig = std::vector<std::vector<std::vector<std::pair<int64_t, int64_t>>>>;

// Every peak's window, and the peaks by contig for the labels.
struct PeakWindows {
  std::vector<PeakWindow> windows;
  PeaksByContig peaks_by_contig;
  IntervalSet all_peaks;
};

// The windows kept after merging, each with the files of its own peak and of the peaks merged
// into it: (kept windows, tasks).
struct KeptWindows {
  std::vector<PeakWindow> kept;
  std::vector<std::vector<uint8_t>> from_file;
};

void check_peak_task_options(const std::vector<IntervalSet>& peak_sets,
                             const std::vector<std::string>& task_names,
                             const PeakTaskOptions& options) {
  const int64_t l = options.window;
  if (l <= 0) throw DataError(fmt::format("window must be > 0, got {}", l));
  if (!(options.label_fraction > 0.0 && options.label_fraction <= 1.0)) {
    throw DataError(
        fmt::format("label_fraction must be in (0, 1], got {}", options.label_fraction));
  }
  if (options.merge_distance < 0) {
    throw DataError(fmt::format("merge_distance must be >= 0, got {}", options.merge_distance));
  }
  if (task_names.size() != peak_sets.size() || peak_sets.empty()) {
    throw DataError(
        fmt::format("{} task names for {} peak files", task_names.size(), peak_sets.size()));
  }
}

// 1. Every peak's window (counted in `peaks`), and the peaks by contig for the labels.
PeakWindows peak_windows(const FastaReader& genome, const std::vector<IntervalSet>& peak_sets,
                         const PeakTaskOptions& options, int64_t& peaks) {
  const int64_t l = options.window;
  const auto contig_of = [&genome](const Interval& iv, const IntervalSet& set) {
    const int id = genome.contig_id(iv.contig);
    if (id < 0) {
      throw DataError(fmt::format("{}:{}: contig '{}' is not in FASTA '{}'", set.path, iv.line,
                                  iv.contig, genome.path()));
    }
    return id;
  };
  PeakWindows out;
  out.peaks_by_contig.assign(
      peak_sets.size(),
      std::vector<std::vector<std::pair<int64_t, int64_t>>>(genome.contigs().size()));
  out.all_peaks.path = peak_sets.front().path;
  for (size_t t = 0; t < peak_sets.size(); ++t) {
    for (const Interval& iv : peak_sets[t].intervals) {
      const int id = contig_of(iv, peak_sets[t]);
      const int64_t length = genome.contigs()[static_cast<size_t>(id)].length;
      const int64_t centre =
          options.use_summit && iv.summit >= 0 ? iv.summit : (iv.start + iv.end) / 2;
      PeakWindow w;
      w.contig = id;
      w.start = window_start(centre, l, 0, length);
      w.end = std::min(w.start + l, length);
      w.centre = w.start + (w.end - w.start) / 2;
      w.task = t;
      out.windows.push_back(w);
      out.peaks_by_contig[t][static_cast<size_t>(id)].emplace_back(iv.start, iv.end);
      out.all_peaks.intervals.push_back(iv);
      ++peaks;
    }
  }
  if (out.windows.empty()) throw DataError("the peak files hold no peak");
  return out;
}

// 2. Sorted and merged: a centre too close to the last kept one (within `merge`) is a
// near-duplicate (counted in `merged`). Each kept window remembers the files of its own peak
// and of the peaks merged into it: those label it 1 whatever the overlap rule says (a window
// moved inside its contig, near a contig end, may no longer centre on its peak; a merged
// peak's summit lies inside the window).
KeptWindows merge_windows(std::vector<PeakWindow> windows, size_t tasks, int64_t merge,
                          int64_t& merged) {
  std::stable_sort(windows.begin(), windows.end(), [](const PeakWindow& a, const PeakWindow& b) {
    return a.contig != b.contig ? a.contig < b.contig : a.centre < b.centre;
  });
  KeptWindows out;
  for (const PeakWindow& w : windows) {
    if (!out.kept.empty() && out.kept.back().contig == w.contig &&
        w.centre - out.kept.back().centre < merge) {
      ++merged;
      out.from_file.back()[w.task] = 1;
      continue;
    }
    out.kept.push_back(w);
    out.from_file.emplace_back(tasks, uint8_t{0});
    out.from_file.back()[w.task] = 1;
  }
  return out;
}

// 3. Labels: a peak of task t overlaps the window's centre (its middle `core` bases), or made
// (or merged into) it. Appends the windows and their labels to `set`.
void label_windows(const FastaReader& genome, const KeptWindows& windows,
                   PeaksByContig& peaks_by_contig, int64_t core, IntervalSet& set) {
  const size_t tasks = peaks_by_contig.size();
  for (auto& per_task : peaks_by_contig) {
    for (auto& list : per_task) std::sort(list.begin(), list.end());
  }
  for (size_t k = 0; k < windows.kept.size(); ++k) {
    const PeakWindow& w = windows.kept[k];
    Interval iv;
    iv.contig = genome.contigs()[static_cast<size_t>(w.contig)].name;
    iv.start = w.start;
    iv.end = w.end;
    set.intervals.push_back(iv);
    const int64_t core_start = w.centre - core / 2,
                  core_end = core_start + std::max<int64_t>(core, 1);
    for (size_t t = 0; t < tasks; ++t) {
      const auto& list = peaks_by_contig[t][static_cast<size_t>(w.contig)];
      // Peaks sorted by start: those starting before core_end, any of which may reach core_start.
      const auto last = std::lower_bound(list.begin(), list.end(),
                                         std::pair<int64_t, int64_t>{core_end, INT64_MIN});
      const bool hit = std::any_of(
          list.begin(), last, [core_start](const auto& peak) { return peak.second > core_start; });
      set.labels.push_back(hit || windows.from_file[k][t] != 0 ? 1.0F : 0.0F);
      set.label_mask.push_back(1);
    }
  }
}

// Back into contig (FASTA) and start order, the `tasks` labels of each window moving with it.
void sort_by_position(const FastaReader& genome, size_t tasks, IntervalSet& set) {
  std::vector<size_t> order(set.intervals.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Interval& x = set.intervals[a];
    const Interval& y = set.intervals[b];
    const int cx = genome.contig_id(x.contig), cy = genome.contig_id(y.contig);
    return cx != cy ? cx < cy : x.start < y.start;
  });
  IntervalSet sorted = set;
  sorted.intervals.clear();
  sorted.labels.clear();
  sorted.label_mask.clear();
  for (const size_t i : order) {
    sorted.intervals.push_back(set.intervals[i]);
    for (size_t t = 0; t < tasks; ++t) {
      sorted.labels.push_back(set.labels[i * tasks + t]);
      sorted.label_mask.push_back(1);
    }
  }
  set = std::move(sorted);
}

// 4. GC-matched negatives against every peak, labelled 0, added to `set` (kept windows: the
// `kept` peak windows before them), which then goes back into position order. Returns their
// count.
int64_t add_negatives(const FastaReader& genome, const IntervalSet& all_peaks, size_t kept,
                      size_t tasks, const PeakTaskOptions& options, IntervalSet& set) {
  NegativeSamplingOptions negatives;
  negatives.window = options.window;
  negatives.use_summit = options.use_summit;
  negatives.seed = options.seed;
  negatives.ratio = options.negatives_ratio * static_cast<double>(kept) /
                    static_cast<double>(all_peaks.intervals.size());
  const NegativeSampling sampled =
      sample_gc_matched_negatives(genome, all_peaks, options.excluded, negatives);
  for (const Interval& negative : sampled.negatives) {
    set.intervals.push_back(negative);
    for (size_t t = 0; t < tasks; ++t) {
      set.labels.push_back(0.0F);
      set.label_mask.push_back(1);
    }
  }
  sort_by_position(genome, tasks, set);
  return static_cast<int64_t>(sampled.negatives.size());
}

}  // namespace

PeakTasks label_peak_tasks(const FastaReader& genome, const std::vector<IntervalSet>& peak_sets,
                           const std::vector<std::string>& task_names,
                           const PeakTaskOptions& options) {
  check_peak_task_options(peak_sets, task_names, options);
  const int64_t l = options.window;
  const int64_t merge = options.merge_distance > 0 ? options.merge_distance : l / 2;
  PeakTasks out;
  PeakWindows peaks = peak_windows(genome, peak_sets, options, out.peaks);
  const size_t tasks = peak_sets.size();
  const KeptWindows kept = merge_windows(std::move(peaks.windows), tasks, merge, out.merged);
  const auto core =
      static_cast<int64_t>(std::llround(options.label_fraction * static_cast<double>(l)));
  IntervalSet& set = out.windows;
  set.path = "peak tasks";
  set.target_names = task_names;
  label_windows(genome, kept, peaks.peaks_by_contig, core, set);
  if (options.negatives_ratio > 0.0) {
    out.negatives = add_negatives(genome, peaks.all_peaks, kept.kept.size(), tasks, options, set);
  }
  set.stats.intervals = set.size();
  return out;
}

}  // namespace strand::data
