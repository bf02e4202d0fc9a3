// A simulated ChIP-nexus-like profile dataset for BPNet-style models: a small genome of random
// contigs with motif instances planted at peaks, and per-base stranded read counts around each
// instance (the + strand piles up 5' of the bound site, the - strand 3' of it) over a Poisson
// background, plus an optional control track.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/simulation/motif_library.h"

namespace strand::data {

/// Parameters of simulate_chip_nexus_profiles().
struct ProfileSimulationConfig {
  std::size_t contigs = 5;               ///< contigs chr1..chrN (>= 3: train, valid, test)
  std::size_t contig_length = 200000;    ///< bases per contig
  std::size_t peaks_per_contig = 100;    ///< motif instances (peaks) per contig
  std::size_t flank = 500;               ///< no peak within this many bases of a contig's end
  std::size_t min_distance = 200;        ///< least distance between two peaks' motif centres
  double gc_fraction = 0.4;              ///< background: C = G = gc/2, A = T = (1 - gc)/2
  double pseudocount = 0.001;            ///< PWM rows become row * (1 - p) + p / 4
  double reverse_complement_prob = 0.5;  ///< chance an instance is planted reverse-complemented
  double reads_per_peak = 200.0;         ///< Poisson mean of a peak's reads (both strands)
  double background_rate = 0.01;         ///< Poisson reads per base and strand of every task
  /// The + strand reads centre this many bases 5' (left) of the motif centre, the - strand
  /// reads as far 3' (right): the two flanks of the bound site.
  std::size_t footprint_offset = 15;
  /// Half-width of each strand's pile: offsets d in [-w, w] with weight w + 1 - |d|.
  std::size_t footprint_width = 10;
  bool control = true;         ///< also simulate a control track (uniform Poisson reads)
  double control_rate = 0.05;  ///< Poisson reads per base of the control track
  std::uint64_t seed = 0;      ///< everything is a function of this seed
};

/// One planted instance: a peak of its motif's task.
struct ProfilePeak {
  std::size_t contig = 0;   ///< index into contig_names
  std::size_t task = 0;     ///< index into task_names (the motif)
  std::size_t start = 0;    ///< first base of the instance
  std::size_t length = 0;   ///< motif length
  bool reverse = false;     ///< planted reverse-complemented
  std::size_t centre = 0;   ///< start + length / 2: the summit
  std::uint64_t reads = 0;  ///< reads drawn for this peak (both strands)
};

/// The simulated genome and its tracks. Counts are read 5' ends per base.
struct ProfileSimulation {
  ProfileSimulationConfig config;                      ///< the configuration used
  std::vector<std::string> contig_names;               ///< chr1, chr2, ...
  std::vector<std::vector<std::uint8_t>> sequences;    ///< [contig] codes, A=0 C=1 G=2 T=3
  std::vector<std::string> task_names;                 ///< one task per motif
  std::vector<std::vector<std::vector<float>>> plus;   ///< [task][contig][base] + strand reads
  std::vector<std::vector<std::vector<float>>> minus;  ///< [task][contig][base] - strand reads
  std::vector<std::vector<float>> control;             ///< [contig][base]; empty without control
  std::vector<ProfilePeak> peaks;                      ///< by contig, then position
};

/// Simulates the genome: i.i.d. background contigs; peaks_per_contig instances per contig, each
/// of a motif drawn uniformly from `motifs` (its task), sampled from its PWM, reverse
/// complemented with reverse_complement_prob, at a uniform place at least flank bases from the
/// contig's ends and min_distance from other peaks' centres; for each peak Poisson(reads_per_peak)
/// reads, each on + or - with probability 1/2, at centre -/+ footprint_offset + d (d from the
/// triangular footprint); then every task's tracks get Poisson(background_rate) reads per base
/// and strand, and the control Poisson(control_rate) per base. Deterministic for a seed on every
/// platform (strand's own RNG). Throws std::invalid_argument for fewer than 3 contigs, no
/// motifs, a motif longer than min_distance, or peaks that do not fit.
[[nodiscard]] ProfileSimulation simulate_chip_nexus_profiles(const std::vector<Motif>& motifs,
                                                             const ProfileSimulationConfig& config);

}  // namespace strand::data
