// Marginalisation (in-silico motif insertion, as tangermeme's marginalize and the BPNet paper's
// cooperativity analysis): write a motif into background sequences and compare the model's
// predictions before and after; with two motifs, at a range of distances, compare the effect of
// the pair with the sum of each alone (their interaction).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "explain/target.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::explain {

/// The codes (A=0 C=1 G=2 T=3) of a motif's letters; throws naming the motif and the first
/// letter that is not A, C, G or T (either case).
std::vector<uint8_t> motif_codes(std::string_view letters);

/// A motif written into a sequence: its codes from base `start` on.
struct Insertion {
  std::vector<uint8_t> codes;
  int64_t start = 0;
};

/// Options of marginalize() and marginalize_spacing().
struct MarginalizeOptions {
  Target target{};           ///< task -1: every task (the result has a column per task)
  int64_t batch_size = 256;  ///< sequences per pass
  /// The inserted sequences as alternates of the backgrounds through the alternates engine
  /// (explain/insertion_values.h) where it takes the model; off: whole passes (the same values
  /// to float rounding).
  bool alternates = true;
};

/// The target of each background ((N, L) codes) before and after writing `insertions` (later
/// ones over earlier ones): (N, T) each, T the output's tasks (target.task -1) or 1. Throws when
/// an insertion does not fit inside the sequences.
struct MarginalizeResult {
  Tensor before;
  Tensor after;
};
MarginalizeResult marginalize(Model& model, const Tensor& backgrounds,
                              const std::vector<Insertion>& insertions,
                              const MarginalizeOptions& options);

/// Whether motifs of widths `width_a` and `width_b` placed `spacing` bases apart (centre to
/// centre, as pair_starts() places them in sequences of `length` bases) share a position: B
/// would overwrite part of A, and the pair's "interaction" would be an artefact of the
/// overwrite, not of the model.
bool pair_overlaps(int64_t length, int64_t width_a, int64_t width_b, int64_t spacing);

/// Where two motifs of widths `width_a` and `width_b` go in sequences of `length` bases for
/// their centres to lie `spacing` bases apart (B after A; negative: before), the pair centred in
/// the sequence: {start of A, start of B}. Throws naming the spacing when either falls outside,
/// or when the two overlap (pair_overlaps()).
std::pair<int64_t, int64_t> pair_starts(int64_t length, int64_t width_a, int64_t width_b,
                                        int64_t spacing);

/// The spacings of [first, last] at which the two motifs do not overlap, in order; each is
/// checked to fit (pair_starts()). Throws naming the range when none is left.
std::vector<int64_t> pair_spacings(int64_t length, int64_t width_a, int64_t width_b, int64_t first,
                                   int64_t last);

/// One spacing of a two-motif experiment: the mean over backgrounds of each task's target with
/// neither motif, A alone, B alone and both; (T) each.
struct SpacingEffect {
  int64_t spacing = 0;
  Tensor background, a, b, both;
};

/// For every spacing of pair_spacings() (those of [first, last] at which the motifs do not
/// overlap): A and B written at pair_starts() alone and together into each background.
std::vector<SpacingEffect> marginalize_spacing(Model& model, const Tensor& backgrounds,
                                               const std::vector<uint8_t>& a,
                                               const std::vector<uint8_t>& b, int64_t first,
                                               int64_t last, const MarginalizeOptions& options);

}  // namespace strand::explain
