// PairForward: a model's predictions for batches of (ref, alt) window pairs, averaged with the
// reverse complement's on request. The scorer's one way into the model.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "alternates/alternate_forward.h"
#include "layers/model.h"
#include "tensor/tensor.h"
#include "variants/allele_windows.h"

namespace strand::variants {

/// One output to predict.
struct PairOutput {
  size_t index = 0;      ///< the model's output index
  bool profile = false;  ///< (B, S, Lp) logits (before the softmax); else (B, T) predictions
  /// The reverse complement's track each track averages with (both kinds); empty: itself.
  std::vector<int64_t> reverse_tracks;
};

/// Predictions for B pairs: per requested output, the ref windows' and the alt windows'.
struct PairPredictions {
  std::vector<Tensor> ref;  ///< per output: (B, T) or (B, S, Lp) float32, contiguous, CPU
  std::vector<Tensor> alt;  ///< the same for the alt windows
};

/// Runs a model over window pairs.
class PairForward {
 public:
  /// `control_tracks`: zeros fed to a model with a control input. With `rc_average` each
  /// prediction is the mean of the window's and its reverse complement's, by
  /// train::average_with_reverse_complement (the rule of `strand predict --rc-average`): (B, T)
  /// outputs average their predictions, profiles their logits with the reverse complement's
  /// positions reversed (as chrombpnet's scorer averages them), tracks paired by
  /// reverse_tracks. With `incremental`, alt windows are computed from the ref windows'
  /// activations (`length`-base windows) by the alternates engine (alternates/alternate_forward.h)
  /// where it takes the model: a Sequential with one (B, T) output through its fused strategy
  /// (SNVs, MNVs and indels), a Graph through its windowed one (BPNet's profile and counts heads;
  /// indels' alt windows run whole).
  PairForward(Model& model, std::vector<PairOutput> outputs, int64_t control_tracks,
              bool rc_average, int64_t length = 0, bool incremental = false);

  /// Predictions for ref_codes and alt_codes ((B, L) uint8 each); `changed` (B ranges, or
  /// empty: anywhere) says where each alt window may differ from its ref window.
  PairPredictions run(const Tensor& ref_codes, const Tensor& alt_codes,
                      std::span<const ChangedRange> changed = {});

  /// Whether alt windows are computed incrementally.
  bool incremental() const { return engine_ != nullptr; }

 private:
  std::vector<Tensor> forward(const Tensor& codes);
  std::vector<Tensor> forward_averaged(const Tensor& codes);
  // forward_values averaged with reverse_values, the reverse complement's, in place.
  void average_with_reverse(std::vector<Tensor>& forward_values,
                            const std::vector<Tensor>& reverse_values) const;
  PairPredictions run_alternates(const Tensor& ref_codes, const Tensor& alt_codes,
                                 std::span<const ChangedRange> changed);
  // The outputs' values for the distinct ref windows `ref` and every alt window `alt` (alt row
  // i of ref row of_ref[i], changed within changed[i], or in mirrored columns for reverse
  // complements): {ref values, alt values}, each activated as forward() returns them.
  std::pair<std::vector<Tensor>, std::vector<Tensor>> predict_alternates(
      const Tensor& ref, const Tensor& alt, std::span<const int64_t> of_ref,
      std::span<const ChangedRange> changed, bool mirror);
  // Alt rows `rows` of `alt` through the engine, from references `references` (ref rows
  // [first_ref, ...)), in units of work; their values go to rows of `values`.
  void engine_rows(const alternates::References& references, int64_t first_ref, const Tensor& alt,
                   std::span<const int64_t> of_ref, const std::vector<ChangedRange>& ranges,
                   const std::vector<int64_t>& rows, int64_t width,
                   std::vector<Tensor>& values) const;

  Model* model_;
  std::vector<PairOutput> outputs_;
  int64_t control_tracks_;
  bool rc_average_;
  std::unique_ptr<alternates::AlternateForward> engine_;
};

/// The reverse complement of each row of (B, L) base codes, as a new tensor.
Tensor reverse_complement_rows(const Tensor& codes);

}  // namespace strand::variants
