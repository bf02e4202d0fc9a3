// AlternateForward: the one engine for alternate sequences. A model's outputs for sequences that
// differ from reference sequences in a few positions (in-silico mutagenesis's mutants, a
// variant's alt allele), computed from the references' activations instead of whole passes.
// explain/fast_ism.h, variants/pair_forward.h and marginalisation (explain/insertion_values.h)
// run on it.
//
// Two strategies, chosen by make() from the model and how the alternates lie:
//   windowed (alternates/windowed_changes.h)  each alternate carries the change of each layer
//       over a window of columns (the fastISM observation): Sequentials and Graphs, alternates
//       anywhere in the sequence, several outputs (BPNet's profile and counts)
//   fused (alternates/fused_sequential.h)  a Sequential whose alternates share their changed
//       columns (variants' alleles at the window's centre): the reference pass fused
//       (BatchNorm1D folded into the convolution, the ReLU in its bias pass) and the changed
//       columns of each layer recomputed for the whole batch at once; it also takes an indel's
//       shifted tail. A Sequential it declines (one convolution, as the reference model) is
//       cheaper whole.
// Both equal a full pass up to float rounding. Each output's value is the one before the
// model's final activation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alternates/alternate_batch.h"
#include "alternates/fused_sequential.h"
#include "alternates/windowed_changes.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::alternates {

/// Where the alternates of one call change their references.
enum class Placement {
  kScattered,  ///< each alternate at its own columns (ISM's mutants along the sequence)
  kShared,     ///< the same columns, or nearly (variants' alleles at the window's centre)
};

/// The strategy make() chose.
enum class Strategy { kWindowed, kFusedSequential };

/// The references' activations that alternates are computed from (one strategy's).
struct References {
  WindowedReference windowed;
  SequentialReference sequential;
  int64_t rows = 0;  ///< G
};

/// The engine for one model, input length and set of outputs.
class AlternateForward {
 public:
  /// The engine for `model` on sequences of `length` bases, computing the values of outputs
  /// `outputs` (indices into Model::output_names()) of alternates placed as `placement` says; or
  /// nullptr with the reason in `why` (a model neither Sequential nor Graph, not float32 on the
  /// CPU, reading inputs beyond the sequence, or one whole passes serve better).
  static std::unique_ptr<AlternateForward> make(Model& model, int64_t length,
                                                std::vector<size_t> outputs, Placement placement,
                                                std::string* why);
  ~AlternateForward();
  AlternateForward(const AlternateForward&) = delete;
  AlternateForward& operator=(const AlternateForward&) = delete;

  /// Runs the reference sequences `codes` ((G, L) uint8) whole, keeping what alternates read.
  References reference(const Tensor& codes) const;

  /// Output k's value for the references: (G, ...).
  const Tensor& reference_output(const References& references, size_t k) const;

  /// The outputs' values for `batch`'s alternates of `references`: per output (M, ...).
  std::vector<Tensor> alternates(const References& references, const AlternateBatch& batch) const;

  /// How many of `count` alternates one call should carry (the windowed strategy: enough to keep
  /// the GEMMs busy, few enough that a step's changes stay in cache; the fused one: all).
  int64_t alternates_per_call(int64_t count) const;

  /// How many of `rows` reference sequences one reference() should take for its kept values to
  /// stay within about `budget_bytes` (at least one).
  int64_t references_per_pass(int64_t rows, int64_t budget_bytes) const;

  /// Whether alternates that differ from their references over more than a quarter of the
  /// columns (an indel's shifted tail) are cheaper here than in a whole pass.
  bool computes_wide_changes() const { return strategy_ == Strategy::kFusedSequential; }

  Strategy strategy() const { return strategy_; }

  /// The windowed strategy's bytes kept per reference row, steps that carry windows and outputs
  /// read through alternates/relu_readout.h (for tests; 0 for the fused strategy).
  int64_t reference_bytes_per_row() const;
  int64_t windowed_steps() const;
  int64_t readouts() const;

 private:
  AlternateForward() = default;
  Strategy strategy_ = Strategy::kWindowed;
  std::unique_ptr<WindowedChanges> windowed_;
  std::optional<FusedSequential> fused_;
};

}  // namespace strand::alternates
