// The inputs of motif discovery: each sequence's hypothetical contributions and its one-hot
// bases, as `strand explain --out X.npz` writes them (arr_0 of X.npz and of X_onehot.npz, each
// (N, 4, L); TF-MoDISco-lite's layout, which also accepts (N, L, 4)). Held in memory as
// (N, L, 4) float, the layout every later step reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace strand::motifs {

/// Contribution scores of N sequences of L bases.
struct ScoreSet {
  int64_t sequences = 0;  ///< N
  int64_t length = 0;     ///< L
  /// (N, L, 4): each letter's hypothetical contribution at each position.
  std::vector<float> hypothetical;
  /// (N, L, 4): 1 at the base present, else 0.
  std::vector<float> one_hot;
  /// (N, L, 4): hypothetical * one_hot, the actual contributions.
  std::vector<float> contrib;

  /// The index of (sequence, position, letter) in the three arrays.
  [[nodiscard]] int64_t at(int64_t sequence, int64_t position, int64_t letter = 0) const {
    return (sequence * length + position) * 4 + letter;
  }
};

/// Builds a ScoreSet from (N, L, 4) arrays (contrib is computed). Throws when the sizes differ
/// or a value is not finite.
ScoreSet make_score_set(int64_t sequences, int64_t length, std::vector<float> hypothetical,
                        std::vector<float> one_hot);

/// The one-hot file that `strand explain` writes beside `scores`: <stem>_onehot.npz.
std::filesystem::path default_sequences_path(const std::filesystem::path& scores);

/// Reads arr_0 of the two .npz files (float32/float64, or uint8/int64 for the bases; (N, 4, L)
/// or (N, L, 4)). Throws naming the file and what is wrong: a missing arr_0, a shape that is
/// not (N, 4, L) or (N, L, 4), shapes that differ between the files, a position with more than
/// one base, a value that is not finite.
ScoreSet read_score_set(const std::filesystem::path& scores,
                        const std::filesystem::path& sequences);

}  // namespace strand::motifs
