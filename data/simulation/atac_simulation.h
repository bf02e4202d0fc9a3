// A simulated ATAC-seq dataset for bias-factorized models (ChromBPNet): a genome of random
// contigs in which every cut site carries a Tn5-like sequence preference (a PWM named Tn5_bias
// scored on the bases around the cut), and peaks, each with a TF motif instance, whose
// accessibility raises the cut rate around them and whose bound TF protects its own bases (a
// footprint). Cuts are Poisson draws, per base, of (background + accessibility) x the bias.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "data/simulation/motif_library.h"

namespace strand::data {

/// Parameters of simulate_atac().
struct AtacSimulationConfig {
  std::size_t contigs = 5;               ///< contigs chr1..chrN (>= 3: train, valid, test)
  std::size_t contig_length = 100000;    ///< bases per contig
  std::size_t peaks_per_contig = 40;     ///< accessible peaks per contig, each with a TF motif
  std::size_t flank = 1100;              ///< no peak within this many bases of a contig's end
  std::size_t min_distance = 1000;       ///< least distance between two peaks' centres
  double gc_fraction = 0.4;              ///< background: C = G = gc/2, A = T = (1 - gc)/2
  double pseudocount = 0.001;            ///< TF PWM rows become row * (1 - p) + p / 4
  double reverse_complement_prob = 0.5;  ///< chance a TF instance is planted reverse-complemented
  double cuts_per_peak = 400.0;          ///< mean cuts of a peak (before the bias), Poisson
  double background_rate = 0.05;         ///< cuts per base everywhere (before the bias)
  std::size_t peak_half_width = 150;     ///< a peak's cuts spread over centre +- this (triangle)
  double footprint_depth = 0.1;          ///< cut rate kept on the TF's bases (and 3 either side)
  double bias_cap = 1000.0;              ///< the bias factor of one site is at most this
  std::uint64_t seed = 0;                ///< everything is a function of this seed
};

/// One peak: a TF instance whose accessibility the cuts show.
struct AtacPeak {
  std::size_t contig = 0;  ///< index into contig_names
  std::size_t motif = 0;   ///< index into the TF motifs
  std::size_t start = 0;   ///< first base of the instance
  std::size_t centre = 0;  ///< the summit: the instance's centre
  double cuts = 0.0;       ///< cuts drawn for the peak (both strands' insertions)
};

/// The simulated genome and its cuts.
struct AtacSimulation {
  AtacSimulationConfig config;                       ///< the configuration used
  Motif bias;                                        ///< the Tn5_bias motif
  std::vector<std::string> contig_names;             ///< chr1, chr2, ...
  std::vector<std::vector<std::uint8_t>> sequences;  ///< [contig] codes, A=0 C=1 G=2 T=3
  std::vector<std::vector<float>> cuts;              ///< [contig][base] cut sites (unstranded)
  std::vector<AtacPeak> peaks;                       ///< by contig, then position
};

/// The Tn5-like insertion preference: a palindromic 8-base PWM named Tn5_bias (consensus
/// GCTATAGC, 0.46 on the consensus base of each position, 0.18 on the others), centred on the cut
/// site. A soft preference, as Tn5's is: the consensus cuts about 150x as often as the average
/// site (at gc 0.4), most sites within a few fold of the average.
Motif tn5_bias_motif();

/// The bias factor of a cut at each base of `codes`: the product over the bias motif's positions
/// of p(base) / background(base) for the bases around it (1 on average over the background;
/// capped at config.bias_cap; 1 where the motif does not fit).
std::vector<double> cut_bias(const Motif& bias, std::span<const std::uint8_t> codes,
                             double gc_fraction, double cap);

/// Simulates the genome: i.i.d. background contigs; peaks_per_contig peaks per contig, each a TF
/// instance of a motif drawn uniformly from `motifs` at a uniform place at least flank bases from
/// the ends and min_distance from other peaks; the expected cuts at base i are (background_rate +
/// the peaks' accessibility at i) x cut_bias at i, a peak's accessibility a triangle of
/// peak_half_width around its centre summing to a Poisson(cuts_per_peak)-scaled total and lowered
/// to footprint_depth over its instance and 3 bases either side; the cuts are Poisson draws of
/// that per base. Deterministic for a seed. Throws std::invalid_argument for fewer than 3 contigs,
/// no motifs, a motif longer than min_distance, or peaks that do not fit.
[[nodiscard]] AtacSimulation simulate_atac(const std::vector<Motif>& motifs,
                                           const AtacSimulationConfig& config);

}  // namespace strand::data
