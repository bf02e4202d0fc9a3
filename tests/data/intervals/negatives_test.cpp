// GC-matched negatives on a real genome (C. elegans, tests/data/fixtures/genomes/ce.fa): their
// GC matches the peaks', they avoid peaks and the blacklist, and a seed fixes them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/intervals/negatives.h"
#include "data/test_paths.h"
#include "fmt/format.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

constexpr int64_t kWindow = 500;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

double gc_of(const FastaReader& genome, const std::string& contig, int64_t start, int64_t end) {
  const std::string bases = genome.fetch(contig, start, end);
  const auto gc = std::count_if(bases.begin(), bases.end(), [](char c) {
    return c == 'G' || c == 'C' || c == 'g' || c == 'c';
  });
  return static_cast<double>(gc) / static_cast<double>(bases.size());
}

// Peaks: 60 windows among the most GC-rich of chromosome I (tiles every 2 kb), so that
// unmatched background would have a clearly lower GC.
IntervalSet gc_rich_peaks(const FastaReader& genome, const TempDir& dir) {
  std::vector<std::pair<double, int64_t>> tiles;
  for (int64_t start = 0; start + kWindow <= 1'000'000; start += 2000) {
    tiles.emplace_back(gc_of(genome, "CHROMOSOME_I", start, start + kWindow), start);
  }
  std::sort(tiles.rbegin(), tiles.rend());
  std::vector<int64_t> starts;
  for (size_t i = 0; i < 60; ++i) starts.push_back(tiles[i * 2].second);
  std::sort(starts.begin(), starts.end());
  std::string bed;
  for (const int64_t s : starts) {
    bed += fmt::format("CHROMOSOME_I\t{}\t{}\n", s + 100, s + kWindow - 100);  // centre = window's
  }
  IntervalReadOptions options;
  options.labelled = false;
  return read_intervals(dir.write("peaks.bed", bed), options);
}

bool overlaps(const Interval& a, const Interval& b) {
  return a.contig == b.contig && a.start < b.end && b.start < a.end;
}

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// The largest gap between the two empirical distribution functions (Kolmogorov-Smirnov).
double ks_distance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  double worst = 0;
  for (const double x : a) {
    const double fa =
        static_cast<double>(std::upper_bound(a.begin(), a.end(), x) - a.begin()) / a.size();
    const double fb =
        static_cast<double>(std::upper_bound(b.begin(), b.end(), x) - b.begin()) / b.size();
    worst = std::max(worst, std::fabs(fa - fb));
  }
  return worst;
}

}  // namespace

TEST_CASE("negatives: GC matches the peaks' on a real genome, away from peaks and blacklist") {
  TempDir dir;
  const std::string fa = dir.copy_in(fixture("genomes/ce.fa"), "ce.fa");
  dir.copy_in(fixture("genomes/ce.fa.fai"), "ce.fa.fai");
  const FastaReader genome(fa);
  const IntervalSet peaks = gc_rich_peaks(genome, dir);
  const std::vector<Interval> blacklist = {{"CHROMOSOME_I", 0, 200'000}, {"CHROMOSOME_X", 0, 5000}};
  NegativeSamplingOptions options;
  options.window = kWindow;
  options.ratio = 2;
  options.seed = 11;
  const NegativeSampling sampled = sample_gc_matched_negatives(genome, peaks, blacklist, options);
  REQUIRE(sampled.negatives.size() == 120);
  REQUIRE(sampled.positives.size() == 60);
  for (size_t i = 0; i < sampled.negatives.size(); ++i) {
    const Interval& n = sampled.negatives[i];
    CAPTURE(n.contig);
    CAPTURE(n.start);
    CHECK(n.end - n.start == kWindow);
    for (const Interval& p : peaks.intervals) CHECK_FALSE(overlaps(n, p));
    for (const Interval& b : blacklist) CHECK_FALSE(overlaps(n, b));
    // The reported GC is the window's.
    CHECK(std::fabs(sampled.negative_gc[i] - gc_of(genome, n.contig, n.start, n.end)) < 1e-12);
    if (i > 0) {  // sorted, and with stride = window never overlapping each other
      const Interval& m = sampled.negatives[i - 1];
      CHECK((genome.contig_id(m.contig) < genome.contig_id(n.contig) ||
             (m.contig == n.contig && m.end <= n.start)));
    }
  }
  // The peaks' windows are the 500 bp around their centres.
  CHECK(sampled.positives[0].end - sampled.positives[0].start == kWindow);
  // GC distributions agree (50 bins of 0.02): means within 0.01, KS distance small.
  const double background = gc_of(genome, "CHROMOSOME_I", 200'000, 1'000'000);
  CAPTURE(background);
  CAPTURE(mean(sampled.positive_gc));
  CHECK(mean(sampled.positive_gc) - background > 0.08);  // unmatched windows would fail below
  CHECK(std::fabs(mean(sampled.negative_gc) - mean(sampled.positive_gc)) < 0.01);
  CHECK(ks_distance(sampled.negative_gc, sampled.positive_gc) < 0.1);
  // Most draws find a candidate in their peak's own bin.
  CHECK(sampled.from_other_bins <= 12);
  // The same seed gives the same negatives; another seed others.
  const NegativeSampling again = sample_gc_matched_negatives(genome, peaks, blacklist, options);
  CHECK(again.negative_gc == sampled.negative_gc);
  options.seed = 12;
  const NegativeSampling other = sample_gc_matched_negatives(genome, peaks, blacklist, options);
  CHECK(other.negative_gc != sampled.negative_gc);
}

TEST_CASE("negatives: too few candidates, bad options and foreign blacklists are errors") {
  TempDir dir;
  const std::string fa = dir.copy_in(fixture("genomes/ce.fa"), "ce.fa");
  dir.copy_in(fixture("genomes/ce.fa.fai"), "ce.fa.fai");
  const FastaReader genome(fa);
  const IntervalSet peaks = gc_rich_peaks(genome, dir);
  NegativeSamplingOptions options;
  options.window = kWindow;
  options.ratio = 200;
  const std::string many =
      error_of([&] { sample_gc_matched_negatives(genome, peaks, {}, options); });
  CHECK(many.find("12000 negatives are wanted (200 per peak for 60 peaks) but only") !=
        std::string::npos);
  CHECK(many.find("lower the ratio") != std::string::npos);
  options.ratio = 0;
  CHECK(error_of([&] {
          sample_gc_matched_negatives(genome, peaks, {}, options);
        }).find("NegativeSamplingOptions.ratio = 0 is invalid") != std::string::npos);
  options.ratio = 1;
  options.contigs = {"chrI"};
  CHECK(error_of([&] {
          sample_gc_matched_negatives(genome, peaks, {}, options);
        }).find("contig 'chrI' to draw negatives from is not in FASTA") != std::string::npos);
  // Drawing only from two small chromosomes: 2 x 10 windows of 500 bp for 15 negatives.
  options.contigs = {"CHROMOSOME_II", "CHROMOSOME_III"};
  options.ratio = 0.25;
  const NegativeSampling small = sample_gc_matched_negatives(genome, peaks, {}, options);
  CHECK(small.negatives.size() == 15);
  for (const Interval& n : small.negatives) CHECK(n.contig != "CHROMOSOME_I");
  const std::string hg = dir.write("hg.bed", "chr1\t0\t1000\nchr2\t0\t5\n");
  CHECK(error_of([&] {
          read_blacklist(hg, genome.contigs(), fa);
        }).find("none of its 2 regions lies on a contig of FASTA") != std::string::npos);
  const std::string mixed = dir.write("mixed.bed", "chr1\t0\t1000\nCHROMOSOME_II\t0\t5\n");
  CHECK(read_blacklist(mixed, genome.contigs(), fa).size() == 1);
}
