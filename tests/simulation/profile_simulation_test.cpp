// The ChIP-nexus-like profile simulation: read totals add up (peaks + background), each strand's
// reads pile up at its offset from the motif centre, motifs sit at the peaks, the output is
// deterministic per seed, and the written FASTA, bigWigs and narrowPeaks hold exactly that.
#include "data/simulation/profile_simulation.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"
#include "data/signals/bigwig.h"
#include "data/simulation/profile_dataset_writer.h"
#include "support/test_paths.h"

using namespace strand::data;

namespace {

const MotifLibrary& library() {
  static const MotifLibrary& lib = MotifLibrary::builtin();
  return lib;
}

ProfileSimulationConfig small(std::uint64_t seed) {
  ProfileSimulationConfig c;
  c.contigs = 3;
  c.contig_length = 20000;
  c.peaks_per_contig = 15;
  c.reads_per_peak = 150;
  c.seed = seed;
  return c;
}

double total(const std::vector<std::vector<float>>& track) {
  double sum = 0.0;
  for (const auto& contig : track) sum += std::accumulate(contig.begin(), contig.end(), 0.0);
  return sum;
}

}  // namespace

TEST_CASE("profile simulation: read totals are peak reads plus background, per task") {
  const std::vector<Motif> motifs = {library().get("TAL1_known4"), library().get("CTCF_known1")};
  const ProfileSimulation sim = simulate_chip_nexus_profiles(motifs, small(1));
  REQUIRE(sim.peaks.size() == 45);
  REQUIRE(sim.task_names == std::vector<std::string>{"TAL1_known4", "CTCF_known1"});
  std::vector<double> peak_reads(2, 0.0);
  std::vector<int> peaks_per_task(2, 0);
  for (const ProfilePeak& p : sim.peaks) {
    peak_reads[p.task] += static_cast<double>(p.reads);
    ++peaks_per_task[p.task];
  }
  CHECK(peaks_per_task[0] > 5);
  CHECK(peaks_per_task[1] > 5);
  const double genome = 3.0 * 20000.0;
  for (std::size_t t = 0; t < 2; ++t) {
    const double background = total(sim.plus[t]) + total(sim.minus[t]) - peak_reads[t];
    // Poisson(0.01) per base and strand: 1200 expected, sd about 35.
    CHECK(std::abs(background - 2.0 * 0.01 * genome) < 5.0 * std::sqrt(2.0 * 0.01 * genome));
    // Reads per peak: Poisson(150) each.
    CHECK(peak_reads[t] / peaks_per_task[t] == doctest::Approx(150.0).epsilon(0.1));
  }
  CHECK(std::abs(total(sim.control) - 0.05 * genome) < 5.0 * std::sqrt(0.05 * genome));
}

TEST_CASE("profile simulation: + reads pile 5' of the motif centre, - reads 3', both strands") {
  ProfileSimulationConfig c = small(2);
  c.background_rate = 0.0;  // only footprint reads, so every read belongs to its peak
  c.footprint_offset = 20;
  c.footprint_width = 6;
  const ProfileSimulation sim = simulate_chip_nexus_profiles({library().get("TAL1_known4")}, c);
  double plus_reads = 0.0, minus_reads = 0.0, plus_offset = 0.0, minus_offset = 0.0;
  for (const ProfilePeak& p : sim.peaks) {
    double here = 0.0;
    for (std::ptrdiff_t d = -40; d <= 40; ++d) {
      const auto at = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(p.centre) + d);
      const double plus = sim.plus[0][p.contig][at];
      const double minus = sim.minus[0][p.contig][at];
      // Every read lies within offset +- width of the centre, on its strand's side.
      if (plus > 0) CHECK((d >= -26 && d <= -14));
      if (minus > 0) CHECK((d >= 14 && d <= 26));
      plus_reads += plus;
      minus_reads += minus;
      plus_offset += plus * static_cast<double>(d);
      minus_offset += minus * static_cast<double>(d);
      here += plus + minus;
    }
    CHECK(here == static_cast<double>(p.reads));
  }
  CHECK(plus_offset / plus_reads == doctest::Approx(-20.0).epsilon(0.02));
  CHECK(minus_offset / minus_reads == doctest::Approx(20.0).epsilon(0.02));
  CHECK(plus_reads / (plus_reads + minus_reads) == doctest::Approx(0.5).epsilon(0.05));
}

TEST_CASE("profile simulation: motifs sit at the peaks, spaced and inside the flanks") {
  const ProfileSimulation sim =
      simulate_chip_nexus_profiles({library().get("TAL1_known4")}, small(3));
  const Motif& m = library().get("TAL1_known4");
  std::size_t reverse = 0;
  for (std::size_t i = 0; i < sim.peaks.size(); ++i) {
    const ProfilePeak& p = sim.peaks[i];
    CHECK(p.centre == p.start + p.length / 2);
    CHECK(p.start >= 500);
    CHECK(p.start + p.length <= 20000 - 500);
    if (i > 0 && sim.peaks[i - 1].contig == p.contig) {
      CHECK(p.centre - sim.peaks[i - 1].centre >= 200);
    }
    reverse += p.reverse ? 1 : 0;
    // The certain PWM positions show their base on the planted strand.
    const std::uint8_t* seq = sim.sequences[p.contig].data() + p.start;
    std::size_t certain = 0, agree = 0;
    for (std::size_t k = 0; k < m.length(); ++k) {
      const auto it = std::find(m.rows[k].begin(), m.rows[k].end(), 1.0);
      if (it == m.rows[k].end()) continue;
      const auto base = static_cast<std::uint8_t>(it - m.rows[k].begin());
      const std::uint8_t got =
          p.reverse ? static_cast<std::uint8_t>(3 - seq[m.length() - 1 - k]) : seq[k];
      ++certain;
      agree += got == base ? 1 : 0;
    }
    CHECK(agree + 1 >= certain);
  }
  CHECK(reverse > 5);
  CHECK(reverse < 40);
}

TEST_CASE("profile simulation: deterministic per seed, and bad configs are refused") {
  const std::vector<Motif> motifs = {library().get("TAL1_known4")};
  const ProfileSimulation a = simulate_chip_nexus_profiles(motifs, small(4));
  const ProfileSimulation b = simulate_chip_nexus_profiles(motifs, small(4));
  const ProfileSimulation c = simulate_chip_nexus_profiles(motifs, small(5));
  CHECK(a.sequences == b.sequences);
  CHECK(a.plus == b.plus);
  CHECK(a.minus == b.minus);
  CHECK(a.control == b.control);
  CHECK(a.sequences != c.sequences);
  ProfileSimulationConfig bad = small(4);
  bad.contigs = 2;
  CHECK_THROWS_AS(simulate_chip_nexus_profiles(motifs, bad), std::invalid_argument);
  bad = small(4);
  bad.peaks_per_contig = 200;  // 200 peaks 200 bases apart need 40,000 bases
  CHECK_THROWS_AS(simulate_chip_nexus_profiles(motifs, bad), std::invalid_argument);
  bad = small(4);
  bad.min_distance = 5;  // shorter than the motif
  CHECK_THROWS_AS(simulate_chip_nexus_profiles(motifs, bad), std::invalid_argument);
  CHECK_THROWS_AS(simulate_chip_nexus_profiles({}, small(4)), std::invalid_argument);
}

TEST_CASE("profile dataset files hold the simulation: FASTA, bigWigs, narrowPeak splits") {
  strand::test::TempDir dir;
  const std::vector<Motif> motifs = {library().get("TAL1_known4"), library().get("AHR::ARNT_1")};
  const ProfileSimulation sim = simulate_chip_nexus_profiles(motifs, small(6));
  const ProfileDatasetFiles files = write_profile_dataset(dir.path(), sim);
  CHECK(files.plus[1].filename() == "AHR__ARNT_1.plus.bw");
  CHECK(std::filesystem::exists(dir.path() / "genome.fa.fai"));
  const FastaReader fasta(files.fasta.string());
  REQUIRE(fasta.contigs().size() == 3);
  std::vector<std::uint8_t> codes(20000);
  fasta.fetch_codes("chr2", 0, 20000, codes.data());
  CHECK(codes == sim.sequences[1]);
  for (std::size_t t = 0; t < 2; ++t) {
    const BigWigReader plus(files.plus[t].string());
    const BigWigReader minus(files.minus[t].string());
    std::vector<float> values(20000);
    for (std::size_t k = 0; k < 3; ++k) {
      plus.read(sim.contig_names[k], 0, 20000, values.data());
      CHECK(values == sim.plus[t][k]);
      minus.read(sim.contig_names[k], 0, 20000, values.data());
      CHECK(values == sim.minus[t][k]);
    }
  }
  // Contig holdout: chr1 train, chr2 validation, chr3 test; summits at the motif centres.
  IntervalReadOptions read;
  read.format = IntervalFormat::kNarrowPeak;
  read.labelled = false;
  const IntervalSet train = read_intervals(files.train.string(), read);
  const IntervalSet test = read_intervals(files.test.string(), read);
  CHECK(files.train_peaks == 15);
  CHECK(files.validation_peaks == 15);
  CHECK(files.test_peaks == 15);
  for (const Interval& iv : train.intervals) CHECK(iv.contig == "chr1");
  for (std::size_t i = 0; i < test.intervals.size(); ++i) {
    CHECK(test.intervals[i].contig == "chr3");
    CHECK(static_cast<std::size_t>(test.intervals[i].summit) == sim.peaks[30 + i].centre);
    CHECK(test.intervals[i].end - test.intervals[i].start == 200);
  }
}
