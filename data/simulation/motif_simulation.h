// DragoNN-style single-motif detection simulation (the built-in TAL1 demo dataset).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/simulation/motif_library.h"

namespace strand::data {

/// Base codes used by simulated sequences.
inline constexpr std::uint8_t kBaseA = 0;
inline constexpr std::uint8_t kBaseC = 1;
inline constexpr std::uint8_t kBaseG = 2;
inline constexpr std::uint8_t kBaseT = 3;
inline constexpr std::uint8_t kBaseN = 4;
/// Letters of the codes above, indexed by code.
inline constexpr char kBaseLetters[] = "ACGTN";

/// Parameters of simulate_single_motif_detection(); defaults are DragoNN's TAL1 benchmark.
struct MotifSimulationConfig {
  std::size_t seq_length = 500;          ///< bases per sequence
  double gc_fraction = 0.4;              ///< background: C = G = gc/2, A = T = (1 - gc)/2
  std::size_t num_pos = 10000;           ///< sequences with one motif instance (label 1)
  std::size_t num_neg = 10000;           ///< background-only sequences (label 0)
  std::uint64_t seed = 0;                ///< everything is a function of this seed
  std::size_t test_size = 4000;          ///< held-out test sequences
  std::size_t validation_size = 3200;    ///< validation sequences; the rest (12,800) train
  double pseudocount = 0.001;            ///< PWM rows become row * (1 - p) + p / 4
  double reverse_complement_prob = 0.5;  ///< chance an instance is inserted reverse-complemented
};

/// One split: `size()` sequences of `seq_length` codes each, row-major (N, L).
struct SimulatedSplit {
  std::size_t seq_length = 0;              ///< L, bases per sequence
  std::vector<std::uint8_t> codes;         ///< (N, L) base codes, A=0 C=1 G=2 T=3 (N=4 unused)
  std::vector<float> labels;               ///< (N) 1 = motif present, 0 = background only
  std::vector<std::uint32_t> ids;          ///< generation index: positives first, then negatives
  std::vector<std::int32_t> motif_starts;  ///< start of the inserted instance, -1 for negatives
  std::vector<std::int8_t> motif_strands;  ///< +1 forward, -1 reverse-complemented, 0 negatives

  /// Number of sequences.
  [[nodiscard]] std::size_t size() const { return labels.size(); }
  /// The codes of sequence `i`.
  [[nodiscard]] const std::uint8_t* sequence(std::size_t i) const {
    return codes.data() + i * seq_length;
  }
  /// Sequence `i` as letters.
  [[nodiscard]] std::string sequence_string(std::size_t i) const;
};

/// The three splits of a simulated dataset plus what generated them.
struct SimulatedDataset {
  std::string motif_name;        ///< name of the inserted motif
  MotifSimulationConfig config;  ///< the configuration used
  SimulatedSplit train;          ///< training split (the rest after test and validation)
  SimulatedSplit validation;     ///< validation_size sequences
  SimulatedSplit test;           ///< test_size sequences
};

/// Simulates DragoNN's `simulate_single_motif_detection`: `num_pos` sequences with exactly one
/// instance of `motif` (each position drawn from its PWM row after the pseudocount, the whole
/// instance reverse-complemented with probability 0.5, placed at a uniform start in
/// [0, L - motif length]) over an i.i.d. background, and `num_neg` background-only sequences;
/// then shuffled and split into test, validation and train (in that order of the shuffled
/// list). Deterministic for a seed on every platform (strand's own RNG, see rng.h).
/// Throws std::invalid_argument for inconsistent configs (motif longer than the sequence, split
/// sizes exceeding the total, GC fraction outside [0, 1]).
[[nodiscard]] SimulatedDataset simulate_single_motif_detection(const Motif& motif,
                                                               const MotifSimulationConfig& config);

}  // namespace strand::data
