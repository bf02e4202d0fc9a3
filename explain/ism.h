// In-silico saturation mutagenesis (ISM): the target's change when each base of a sequence (or
// of a range of positions) is replaced by each of the three other letters. The fast path
// (explain/fast_ism.h) recomputes only the columns of each layer that a substitution changes,
// which is exact: every other column equals the reference's (the fastISM observation, Nair et
// al. 2022). The brute-force path runs every mutant through the whole model, in batches, and
// serves models the fast path does not cover; the two agree to float rounding.
#pragma once

#include <cstdint>

#include "explain/target.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::explain {

/// Which ISM path runs.
enum class IsmPath {
  kAuto,        ///< the fast path where the model allows it, else brute force
  kFast,        ///< the fast path; throws naming what it does not cover
  kBruteForce,  ///< every mutant through the whole model
};

/// Options of ism().
struct IsmOptions {
  Target target{};           ///< what is explained
  int64_t start = 0;         ///< first position mutated
  int64_t end = -1;          ///< one past the last position mutated; -1: the sequence's end
  int64_t batch_size = 256;  ///< mutants per pass
  IsmPath path = IsmPath::kAuto;
};

/// What ism() returns for N sequences and P = end - start positions.
struct IsmResult {
  /// (N, 4, P) float: f(the sequence with letter c at position start + p) - f(the sequence);
  /// 0 at each position's own letter, and at every letter where the sequence has an N (an N is
  /// not mutated: it has no letter to replace).
  Tensor effects;
  Tensor prediction;  ///< (N) f(the sequence)
  bool fast = false;  ///< whether the fast path ran
};

/// ISM of `codes` ((N, L) uint8) for `model` (run in evaluation mode without gradients; its mode
/// restored). Throws for a position range outside the sequences or a bad target.
IsmResult ism(Model& model, const Tensor& codes, const IsmOptions& options);

/// The brute-force path alone (what ism() runs with IsmPath::kBruteForce).
IsmResult ism_brute_force(Model& model, const Tensor& codes, const IsmOptions& options);

}  // namespace strand::explain
