// Several peak files as one multi-task dataset (data/intervals/peak_tasks.h) on a real genome (C.
// elegans, tests/data/fixtures/genomes/ce.fa): merged windows, per-file labels from the window's
// centre, GC-matched negatives labelled 0, sorted output; and the strand prepare --peaks command.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/intervals/peak_tasks.h"
#include "data/test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

IntervalSet peaks_from(const TempDir& dir, const std::string& name, const std::string& bed) {
  IntervalReadOptions options;
  options.format = IntervalFormat::kNarrowPeak;
  options.labelled = false;
  return read_intervals(dir.write(name, bed), options);
}

// A narrowPeak line on chromosome I with its summit at `summit`.
std::string peak(int64_t start, int64_t end, int64_t summit) {
  return "CHROMOSOME_I\t" + std::to_string(start) + "\t" + std::to_string(end) +
         "\tp\t0\t.\t1\t1\t1\t" + std::to_string(summit - start) + "\n";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE(
    "peak tasks: windows merge across files and each is labelled by the peaks at its centre") {
  TempDir dir;
  const FastaReader genome(dir.copy_in(fixture("genomes/ce.fa"), "ce.fa"));
  // File a: peaks at 10,000 and 50,000; file b: one at 10,100 (a near-duplicate of a's first
  // window, which b's peak still labels) and one at 80,000.
  const IntervalSet a =
      peaks_from(dir, "a.narrowPeak", peak(9950, 10050, 10000) + peak(49900, 50100, 50000));
  const IntervalSet b =
      peaks_from(dir, "b.narrowPeak", peak(10050, 10150, 10100) + peak(79950, 80050, 80000));
  PeakTaskOptions options;
  options.window = 400;
  const PeakTasks tasks = label_peak_tasks(genome, {a, b}, {"A", "B"}, options);
  CHECK(tasks.peaks == 4);
  CHECK(tasks.merged == 1);
  const IntervalSet& w = tasks.windows;
  REQUIRE(w.size() == 3);
  CHECK(w.target_names == std::vector<std::string>{"A", "B"});
  CHECK(w.intervals[0].start == 9800);
  CHECK(w.intervals[0].end == 10200);
  CHECK(w.intervals[1].start == 49800);
  CHECK(w.intervals[2].start == 79800);
  CHECK(w.labels == std::vector<float>{1, 1, 1, 0, 0, 1});
  // A narrower core leaves b's peak outside the first window's centre, but the peak was merged
  // into that window, which keeps its label (issue 23: no peak is ever written as 0).
  options.label_fraction = 0.1;
  CHECK(label_peak_tasks(genome, {a, b}, {"A", "B"}, options).windows.labels ==
        std::vector<float>{1, 1, 1, 0, 0, 1});
  // A peak of b near a's window that was not merged into it: the core decides.
  const IntervalSet near =
      peaks_from(dir, "near.narrowPeak", peak(10150, 10190, 10170) + peak(79950, 80050, 80000));
  options.merge_distance = 100;  // b's window (centre 10170) stays apart from a's (10000)
  const PeakTasks apart = label_peak_tasks(genome, {a, near}, {"A", "B"}, options);
  REQUIRE(apart.windows.size() == 4);
  CHECK(apart.windows.labels == std::vector<float>{1, 0, 0, 1, 1, 0, 0, 1});
}

// Issue 23 (2): a narrowPeak peak at the end of a contig got the window moved inside the contig
// (9800-10000 of a 10,000-base contig for a 200-base window), whose centre half missed the peak:
// the only window of a real peak was written labelled 0.
TEST_CASE("peak tasks: a peak at a contig's end keeps its label in its moved window") {
  TempDir dir;
  const FastaReader genome(dir.copy_in(fixture("genomes/ce.fa"), "ce.fa"));
  REQUIRE(genome.contigs()[1].name == "CHROMOSOME_II");
  const int64_t end = genome.contigs()[1].length;
  const IntervalSet a =
      peaks_from(dir, "end.narrowPeak",
                 "CHROMOSOME_II\t" + std::to_string(end - 50) + "\t" + std::to_string(end) +
                     "\tp\t0\t.\t1\t1\t1\t25\n" + peak(5000, 5100, 5050));
  PeakTaskOptions options;
  options.window = 200;
  const PeakTasks tasks = label_peak_tasks(genome, {a}, {"A"}, options);
  const IntervalSet& w = tasks.windows;
  REQUIRE(w.size() == 2);
  CHECK(w.intervals[1].contig == "CHROMOSOME_II");
  CHECK(w.intervals[1].start == end - 200);
  CHECK(w.intervals[1].end == end);
  CHECK(w.labels == std::vector<float>{1, 1});
}

TEST_CASE("peak tasks: GC-matched negatives join labelled 0 and the order stays by position") {
  TempDir dir;
  const FastaReader genome(dir.copy_in(fixture("genomes/ce.fa"), "ce.fa"));
  std::string bed;
  for (int64_t centre = 20000; centre < 900000; centre += 40000) {
    bed += peak(centre - 100, centre + 100, centre);
  }
  const IntervalSet a = peaks_from(dir, "a.narrowPeak", bed);
  PeakTaskOptions options;
  options.window = 500;
  options.negatives_ratio = 2.0;
  options.seed = 7;
  const PeakTasks tasks = label_peak_tasks(genome, {a}, {"A"}, options);
  const IntervalSet& w = tasks.windows;
  CHECK(tasks.negatives == 2 * a.size());
  CHECK(w.size() == 3 * a.size());
  int64_t ones = 0;
  for (const float label : w.labels) ones += label > 0.5F ? 1 : 0;
  CHECK(ones == a.size());
  for (int64_t i = 1; i < w.size(); ++i) {
    const Interval& x = w.intervals[static_cast<size_t>(i - 1)];
    const Interval& y = w.intervals[static_cast<size_t>(i)];
    CHECK((x.contig != y.contig || x.start <= y.start));
  }
  // The same seed gives the same windows.
  CHECK(label_peak_tasks(genome, {a}, {"A"}, options).windows.intervals.size() ==
        w.intervals.size());
  CHECK(error_of([&] {
          label_peak_tasks(genome, {a}, {"A", "B"}, options);
        }) == "2 task names for 1 peak files");
  options.label_fraction = 0;
  CHECK(error_of([&] { label_peak_tasks(genome, {a}, {"A"}, options); }) ==
        "label_fraction must be in (0, 1], got 0");
}

}  // namespace
