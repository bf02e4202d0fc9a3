// The scores of a variant from a model's predictions for its two alleles, per output kind, as
// chrombpnet's variant scorer computes them; and empirical p-values against a null.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strand::variants {

/// What an output predicts, which decides its scores.
enum class OutputKind {
  kValue,      ///< (B, T) probabilities or values: ref, alt, diff
  kLogCounts,  ///< (B, T) log counts (BPNet's counts head): ref, alt, diff, log2fc
  kCounts,     ///< (B, T) counts or rates (an Exp output): ref, alt, diff, log2fc
  kProfile,    ///< (B, S, Lp) logits of a softmax over positions per track: jsd
};

/// "value", "log_counts", "counts" or "profile".
const char* output_kind_name(OutputKind kind);

/// The scores of an output of `kind`, in column order: ref, alt, diff[, log2fc] or jsd.
const std::vector<std::string>& score_names(OutputKind kind);

/// Which tail of the null an empirical p-value counts.
enum class Tail {
  kNone,   ///< no p-value (ref, alt)
  kRight,  ///< large values are extreme (jsd)
  kBoth,   ///< both signs are (diff, log2fc): twice the smaller tail, at most 1
};

/// The tail of `score`'s p-value: diff and log2fc both, jsd right, others none.
Tail score_tail(const std::string& score);

/// log2 of the fold change from ref to alt. Log counts (chrombpnet: log2(exp(alt) / exp(ref)))
/// give (alt - ref) / ln 2; counts give log2(alt / ref).
double log2_fold_change(OutputKind kind, double ref, double alt);

/// The Jensen-Shannon distance, base 2, between softmax(alt_logits) and softmax(ref_logits) (n
/// positions each): scipy.spatial.distance.jensenshannon(p, q, base=2), which chrombpnet's
/// scorer reports as jsd. In [0, 1].
double jensen_shannon_distance(const float* alt_logits, const float* ref_logits, int64_t n);

/// The empirical p-value of `value` against `sorted_null` (ascending), as chrombpnet's get_pvals:
/// right tail (#{null >= value} + 1) / (n + 1); both tails twice the smaller of that and
/// (#{null <= value} + 1) / (n + 1), at most 1. NaN for an empty null or kNone.
double empirical_p_value(const std::vector<float>& sorted_null, double value, Tail tail);

}  // namespace strand::variants
