// simulate_chip_nexus_profiles: contigs, planted peaks, footprint reads and backgrounds.
#include "data/simulation/profile_simulation.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "core/stop_signal.h"
#include "data/simulation/motif_embedding.h"
#include "data/simulation/xoshiro_rng.h"

namespace strand::data {
namespace {

void validate(const std::vector<Motif>& motifs, const ProfileSimulationConfig& c) {
  if (motifs.empty()) throw std::invalid_argument("a profile simulation needs at least one motif");
  if (c.contigs < 3) {
    throw std::invalid_argument(fmt::format(
        "{} contigs: at least 3 are needed (the last is the test set, the one before it the "
        "validation set)",
        c.contigs));
  }
  if (c.contig_length > (std::size_t{1} << 31)) {
    throw std::invalid_argument(fmt::format("contig_length {} is too long", c.contig_length));
  }
  for (const Motif& m : motifs) {
    if (m.length() == 0 || m.length() > c.min_distance) {
      throw std::invalid_argument(fmt::format(
          "motif '{}' ({} bp) must be shorter than min_distance {} (peaks would overlap)", m.name,
          m.length(), c.min_distance));
    }
  }
  if (c.flank < c.footprint_offset + c.footprint_width) {
    throw std::invalid_argument(
        fmt::format("flank {} must hold footprint_offset {} + footprint_width {}", c.flank,
                    c.footprint_offset, c.footprint_width));
  }
  if (c.contig_length < 2 * c.flank + c.min_distance * c.peaks_per_contig) {
    throw std::invalid_argument(fmt::format(
        "{} peaks at least {} bases apart and {} bases from the ends do not fit in a contig of {} "
        "bases",
        c.peaks_per_contig, c.min_distance, c.flank, c.contig_length));
  }
  const bool rates_ok = c.reads_per_peak >= 0.0 && c.background_rate >= 0.0 &&
                        c.control_rate >= 0.0 && c.reads_per_peak <= 1e9 &&
                        c.background_rate <= 1e3 && c.control_rate <= 1e3;
  if (!rates_ok) {
    throw std::invalid_argument(
        "reads_per_peak (up to 1e9), background_rate and control_rate (up to 1e3) must be >= 0");
  }
}

// Uniform reads: Poisson(rate * n) read 5' ends at uniform bases of `track`.
void add_uniform_reads(Rng& rng, double rate, std::vector<float>& track) {
  const std::uint64_t reads = rng.poisson(rate * static_cast<double>(track.size()));
  for (std::uint64_t r = 0; r < reads; ++r) track[rng.uniform_int(track.size())] += 1.0F;
}

}  // namespace

ProfileSimulation simulate_chip_nexus_profiles(const std::vector<Motif>& motifs,
                                               const ProfileSimulationConfig& config) {
  validate(motifs, config);
  const ProfileSimulationConfig& c = config;
  ProfileSimulation sim;
  sim.config = c;
  std::vector<SamplingMotif> sampling;
  for (const Motif& m : motifs) {
    sampling.emplace_back(m, c.pseudocount);
    sim.task_names.push_back(m.name);
  }
  const std::size_t tasks = motifs.size();
  Rng rng(c.seed);
  for (std::size_t k = 0; k < c.contigs; ++k) {
    sim.contig_names.push_back(fmt::format("chr{}", k + 1));
    sim.sequences.emplace_back(c.contig_length);
    sample_background(rng, c.gc_fraction, sim.sequences.back());
  }
  sim.plus.assign(
      tasks, std::vector<std::vector<float>>(c.contigs, std::vector<float>(c.contig_length, 0.0F)));
  sim.minus = sim.plus;

  // The footprint of one strand: offsets d in [-w, w] weighted w + 1 - |d| (integers, so the
  // draws are exact everywhere).
  const auto w = static_cast<std::ptrdiff_t>(c.footprint_width);
  std::vector<double> footprint;
  for (std::ptrdiff_t d = -w; d <= w; ++d) {
    footprint.push_back(static_cast<double>(w + 1 - (d < 0 ? -d : d)));
  }
  const auto offset = static_cast<std::ptrdiff_t>(c.footprint_offset);

  std::vector<std::uint8_t> instance;
  for (std::size_t k = 0; k < c.contigs; ++k) {
    throw_if_stop_requested();  // SIGINT/SIGTERM (core/stop_signal.h)
    // Each peak takes a block of min_distance bases with its motif in the middle, so that
    // blocks that do not overlap keep centres min_distance apart.
    Occupancy occupancy(c.contig_length);
    std::vector<ProfilePeak> contig_peaks;
    for (std::size_t p = 0; p < c.peaks_per_contig; ++p) {
      ProfilePeak peak;
      peak.contig = k;
      peak.task = rng.uniform_int(tasks);
      const SamplingMotif& motif = sampling[peak.task];
      instance.resize(motif.length());
      sample_instance(rng, motif, instance);
      peak.reverse = rng.bernoulli(c.reverse_complement_prob);
      const std::size_t block =
          place(rng, occupancy, c.min_distance, c.flank, c.contig_length - c.flank, "a peak");
      peak.length = motif.length();
      peak.start = block + (c.min_distance - peak.length) / 2;
      peak.centre = peak.start + peak.length / 2;
      write_instance(instance, peak.reverse, peak.start, sim.sequences[k]);
      peak.reads = rng.poisson(c.reads_per_peak);
      for (std::uint64_t r = 0; r < peak.reads; ++r) {
        const bool plus = rng.bernoulli(0.5);
        const auto d = static_cast<std::ptrdiff_t>(rng.categorical(footprint)) - w;
        const auto centre = static_cast<std::ptrdiff_t>(peak.centre);
        const auto at = static_cast<std::size_t>(plus ? centre - offset + d : centre + offset + d);
        (plus ? sim.plus : sim.minus)[peak.task][k][at] += 1.0F;
      }
      contig_peaks.push_back(peak);
    }
    std::sort(contig_peaks.begin(), contig_peaks.end(),
              [](const ProfilePeak& a, const ProfilePeak& b) { return a.centre < b.centre; });
    sim.peaks.insert(sim.peaks.end(), contig_peaks.begin(), contig_peaks.end());
  }
  for (std::size_t t = 0; t < tasks; ++t) {
    for (std::size_t k = 0; k < c.contigs; ++k) {
      add_uniform_reads(rng, c.background_rate, sim.plus[t][k]);
      add_uniform_reads(rng, c.background_rate, sim.minus[t][k]);
    }
  }
  if (c.control) {
    sim.control.assign(c.contigs, std::vector<float>(c.contig_length, 0.0F));
    for (std::size_t k = 0; k < c.contigs; ++k)
      add_uniform_reads(rng, c.control_rate, sim.control[k]);
  }
  return sim;
}

}  // namespace strand::data
