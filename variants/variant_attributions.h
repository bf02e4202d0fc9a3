// DeepLIFT/SHAP attributions of the strongest variants of a scoring run (`strand variants
// --attributions K`): a sink wrapper keeps the K ALT alleles with the largest effect as their
// rows stream past (memory stays flat), then the ref and alt windows of each are explained
// (explain/deep_lift_shap.h) for the output and task where its effect was largest.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "explain/target.h"
#include "layers/model.h"
#include "tensor/tensor.h"
#include "variants/variant_scorer.h"

namespace strand::variants {

/// One of the strongest ALT alleles.
struct StrongVariant {
  int64_t row = 0;  ///< the ALT's row in the output (0-based, input order)
  std::string id, chrom, ref, alt;
  int64_t position = 0;    ///< 1-based
  std::string column;      ///< the score column of its largest effect ("CTCF.diff")
  double strength = 0.0;   ///< |that score|
  explain::Target target;  ///< the output and task of that column
};

/// A sink that passes every record on to `inner` and keeps the `count` ALT alleles of largest
/// |diff| (jsd for a profile output) over the scored tasks. commit() is held back: the caller
/// commits the inner sink with commit_inner() once the attributions are written, so that a
/// failure leaves neither file.
class StrongestVariants : public VariantScoreSink {
 public:
  StrongestVariants(VariantScoreSink& inner, int64_t count,
                    const std::vector<ScoredOutput>& outputs);

  bool needs_records() const override { return inner_.needs_records(); }
  void begin(std::span<const ScoreColumn> columns, const VariantReader& input) override;
  void write(const VariantRecord& record, std::span<const float> values) override;
  void commit() override {}
  void commit_inner() { inner_.commit(); }

  /// The strongest ALT alleles, strongest first.
  std::vector<StrongVariant> strongest() const;

 private:
  VariantScoreSink& inner_;
  int64_t count_;
  std::vector<ScoredOutput> outputs_;
  std::vector<ScoreColumn> columns_;
  std::vector<size_t> ranked_;       // the columns that rank: diff (jsd for profiles), no p-values
  std::vector<StrongVariant> kept_;  // a min-heap on strength
  int64_t rows_ = 0;
};

/// How to explain the strongest variants.
struct VariantAttributionOptions {
  int64_t input_length = 0;  ///< L
  int64_t references = 20;   ///< dinucleotide shuffles per window
  uint64_t seed = 0;
  int64_t batch_size = 128;  ///< sequence-reference pairs per pass
  /// Variants-file contig name -> FASTA record name.
  std::map<std::string, std::string, std::less<>> contig_aliases;
};

/// The attributions of `variants`: codes (K, L) uint8 and hypothetical contributions
/// (K, 4, L) float of each window, f(x), and the convergence deviation of each.
struct VariantAttributions {
  Tensor ref_codes, alt_codes;
  Tensor ref_hypothetical, alt_hypothetical;
  Tensor ref_prediction, alt_prediction;  ///< (K) the explained value of each window
  Tensor ref_deviation, alt_deviation;    ///< (K) relative convergence deviations
};

/// Cuts each variant's windows from `fasta` (chrombpnet's rule, N beyond contig ends) and
/// explains them with DeepLIFT/SHAP for its target. Throws DataError for a contig the FASTA
/// lacks.
VariantAttributions attribute_variants(Model& model, const std::string& fasta,
                                       const std::vector<StrongVariant>& variants,
                                       const VariantAttributionOptions& options);

/// Writes `attributions` of `variants` as an .npz (ref_onehot, alt_onehot as (K, 4, L) float32,
/// ref_hypothetical, alt_hypothetical (K, 4, L) float32, row (K) int64: TF-MoDISco-lite reads
/// a pair of them) and a TSV beside it (`tsv`: rank, row, id, chrom, pos, ref, alt, column,
/// strength, the explained ref and alt values, their deviations), both atomically.
void write_variant_attributions(const std::string& npz, const std::string& tsv,
                                const std::vector<StrongVariant>& variants,
                                const VariantAttributions& attributions);

}  // namespace strand::variants
