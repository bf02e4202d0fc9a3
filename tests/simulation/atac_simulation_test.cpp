// The ATAC simulation with a Tn5-like cut bias: the bias factor of a cut follows the bias PWM
// (capped), peaks hold more cuts than the background, the output is deterministic per seed, and
// the dataset writer writes all its files or, when the non-peak draw fails, none.
#include "data/simulation/atac_simulation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "data/data_error.h"
#include "data/simulation/atac_dataset_writer.h"
#include "support/test_paths.h"

using namespace strand::data;

namespace {

std::vector<Motif> tf_motifs() { return {MotifLibrary::builtin().get("TAL1_known4")}; }

AtacSimulationConfig small(std::uint64_t seed) {
  AtacSimulationConfig c;
  c.contigs = 3;
  c.contig_length = 20000;
  c.peaks_per_contig = 5;
  c.flank = 650;
  c.seed = seed;
  return c;
}

std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("atac simulation: the cut bias follows the Tn5 PWM, capped, 1 where it does not fit") {
  const Motif bias = tn5_bias_motif();
  REQUIRE(bias.consensus == "GCTATAGC");
  // A-only sequence at gc 0.4: the consensus has A at 2 of its 8 positions, so every site scores
  // (0.46 / 0.3)^2 (0.18 / 0.3)^6; the 4 edge bases do not fit.
  const std::vector<std::uint8_t> a_only(12, 0);
  const std::vector<double> factor = cut_bias(bias, a_only, 0.4, 1000.0);
  CHECK(factor[0] == 1.0);
  CHECK(factor[3] == 1.0);
  CHECK(factor[4] == doctest::Approx(std::pow(0.46 / 0.3, 2) * std::pow(0.18 / 0.3, 6)));
  CHECK(factor[11] == 1.0);
  // The consensus scores (0.46 / 0.2)^4 (0.46 / 0.3)^4 = 155 at the cut centre, or the cap.
  const std::vector<std::uint8_t> consensus = {2, 1, 3, 0, 3, 0, 2, 1};
  CHECK(cut_bias(bias, consensus, 0.4, 100.0)[4] == 100.0);
  CHECK(cut_bias(bias, consensus, 0.4, 1000.0)[4] ==
        doctest::Approx(std::pow(0.46 / 0.2, 4) * std::pow(0.46 / 0.3, 4)));
}

TEST_CASE("atac simulation: peaks hold more cuts than the background, deterministic per seed") {
  const AtacSimulation sim = simulate_atac(tf_motifs(), small(3));
  REQUIRE(sim.peaks.size() == 15);
  double in_peaks = 0.0;
  for (const AtacPeak& p : sim.peaks) {
    const auto& cuts = sim.cuts[p.contig];
    in_peaks += std::accumulate(cuts.begin() + static_cast<std::ptrdiff_t>(p.centre - 150),
                                cuts.begin() + static_cast<std::ptrdiff_t>(p.centre + 151), 0.0);
  }
  double all = 0.0;
  for (const auto& cuts : sim.cuts) all += std::accumulate(cuts.begin(), cuts.end(), 0.0);
  // 15 peaks of ~400 cuts in 4.5 kb against ~0.05 cuts per base elsewhere (~3 kb of cuts).
  CHECK(in_peaks > 0.5 * all);
  const AtacSimulation again = simulate_atac(tf_motifs(), small(3));
  CHECK(again.cuts == sim.cuts);
  CHECK(again.sequences == sim.sequences);
  CHECK(simulate_atac(tf_motifs(), small(4)).sequences != sim.sequences);
  AtacSimulationConfig bad = small(3);
  bad.contigs = 2;
  CHECK_THROWS_AS(simulate_atac(tf_motifs(), bad), std::invalid_argument);
}

TEST_CASE("atac dataset: all files written, or none when the non-peak draw fails") {
  strand::test::TempDir tmp;
  const AtacSimulation sim = simulate_atac(tf_motifs(), small(5));
  const AtacDatasetFiles files = write_atac_dataset(tmp.path() / "ok", sim, 1000, 1.0);
  CHECK(files.peak_count == 15);
  CHECK(files.nonpeak_count == 15);
  CHECK(files.nonpeaks == tmp.path() / "ok" / "nonpeaks.bed");
  CHECK(names_in(tmp.path() / "ok") ==
        std::vector<std::string>{"cuts.bw", "genome.fa", "genome.fa.fai", "nonpeaks.bed",
                                 "peaks.narrowPeak", "peaks_nonpeaks.bed"});
  // Far more non-peaks than the genome holds: the draw fails after the genome was written.
  std::string message;
  try {
    write_atac_dataset(tmp.path() / "new", sim, 1000, 500.0);
  } catch (const DataError& error) {
    message = error.what();
  }
  // The message names the genome where the user would find it, not the staging folder.
  CHECK(message.find((tmp.path() / "new" / "genome.fa").string()) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.path() / "new"));
  // An existing folder keeps what it held, and gains nothing.
  std::filesystem::create_directories(tmp.path() / "old");
  CHECK_THROWS_AS(write_atac_dataset(tmp.path() / "old", sim, 1000, 500.0), DataError);
  CHECK(std::filesystem::is_empty(tmp.path() / "old"));
}
