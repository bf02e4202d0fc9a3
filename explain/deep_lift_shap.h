// DeepLIFT/SHAP attributions (Lundberg & Lee 2017, Shrikumar et al. 2017): the rescale rule
// averaged over references, as shap's DeepExplainer and tangermeme's deep_lift_shap compute it.
// For each sequence x and each of its references r, one pass of the model's attribution rules
// (autograd/attribution.h) gives the multipliers m = d_DeepLIFT f / d onehot(x) (4, L); the
// hypothetical contribution of letter c at position l is m[c, l] - sum_c' r[c', l] m[c', l]
// (what the pair's contribution at l would be with c there), averaged over the references. The
// actual contributions are hypothetical x onehot(x) and sum to f(x) - mean_r f(r); how far they
// miss is the convergence deviation, reported per sequence. An N in x is an all-zero one-hot
// column with no actual contribution, so where x has Ns the sum also misses the references'
// terms there (-m at the reference's letter): the deviation reports that too. A profile output's
// summary (explain/target.h) holds each input's softmax weights constant, as bpnet-lite's and
// chrombpnet's wrappers do, so its references are weighed with the input's weights: f(r) here is
// sum_l softmax(z_x)_l (z_r - mean z_r)_l.
#pragma once

#include <cstdint>

#include "core/value_range.h"

#include "explain/references.h"
#include "explain/target.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::explain {

/// The references per sequence deep_lift_shap() takes (`strand explain --references` and the
/// Python package's references= are checked against it): tangermeme and shap use 10 to 100;
/// more only costs time and the (N, R, L) references' memory.
inline constexpr IntRange kReferencesRange{1, 100000};

/// Options of deep_lift_shap().
struct DeepLiftShapOptions {
  Target target{};          ///< what is explained
  int64_t references = 20;  ///< references per sequence (in kReferencesRange)
  uint64_t seed = 0;        ///< the shuffles' seed (when reference_function is empty)
  ReferenceFunction reference_function{};  ///< empty: dinucleotide_shuffles(seed)
  int64_t batch_size = 128;                ///< sequence-reference pairs per pass
  int64_t first_index = 0;       ///< the index of codes' first row (keys of the references)
  bool keep_references = false;  ///< return the references used
};

/// What deep_lift_shap() returns for N sequences of L bases with R references each.
struct DeepLiftShapResult {
  Tensor hypothetical;        ///< (N, 4, L) float: hypothetical contributions
  Tensor prediction;          ///< (N) f(x)
  Tensor reference_mean;      ///< (N) the mean of f(r) over the references (see above for profiles)
  Tensor deviation;           ///< (N) |sum of actual contributions - (f(x) - mean f(r))|
  Tensor relative_deviation;  ///< (N) deviation / mean_r |f(x) - f(r)| (0 when that is 0)
  Tensor references;          ///< (N, R, L) uint8 codes, with keep_references
};

/// DeepLIFT/SHAP attributions of `codes` ((N, L) uint8 base codes, N = 4 an all-zero one-hot
/// column) for `model` (run in evaluation mode with its parameters frozen; both restored).
/// Throws for zero references, a target the model has no output or task for, or a model op
/// without a DeepLIFT rule.
DeepLiftShapResult deep_lift_shap(Model& model, const Tensor& codes,
                                  const DeepLiftShapOptions& options);

/// Actual contributions: `hypothetical` (N, 4, L) times the one-hot of `codes` (N, L).
Tensor actual_contributions(const Tensor& hypothetical, const Tensor& codes);

}  // namespace strand::explain
