// PairForward: a model's predictions for batches of (ref, alt) window pairs, averaged with the
// reverse complement's on request. The scorer's one way into the model.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "explain/windowed_forward.h"
#include "layers/model.h"
#include "tensor/tensor.h"
#include "variants/allele_windows.h"
#include "variants/incremental_forward.h"

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
  /// reverse_tracks. With `incremental`, alt windows that differ from their
  /// ref window in a few positions (SNVs, MNVs) are computed from the ref windows' activations
  /// (`length`-base windows): a Sequential with one (B, T) output through IncrementalForward
  /// where it plans one, a Graph through explain::WindowedForward (BPNet's profile and counts
  /// heads); indels' alt windows run whole.
  PairForward(Model& model, std::vector<PairOutput> outputs, int64_t control_tracks,
              bool rc_average, int64_t length = 0, bool incremental = false);

  /// Predictions for ref_codes and alt_codes ((B, L) uint8 each); `changed` (B ranges, or
  /// empty: anywhere) says where each alt window may differ from its ref window.
  PairPredictions run(const Tensor& ref_codes, const Tensor& alt_codes,
                      std::span<const ChangedRange> changed = {});

  /// Whether alt windows are computed incrementally.
  bool incremental() const { return incremental_.has_value() || windowed_ != nullptr; }

 private:
  std::vector<Tensor> forward(const Tensor& codes);
  std::vector<Tensor> forward_averaged(const Tensor& codes);
  // forward_values averaged with reverse_values, the reverse complement's, in place.
  void average_with_reverse(std::vector<Tensor>& forward_values,
                            const std::vector<Tensor>& reverse_values) const;
  PairPredictions run_incremental(const Tensor& ref_codes, const Tensor& alt_codes,
                                  std::span<const ChangedRange> changed);
  PairPredictions run_windowed(const Tensor& ref_codes, const Tensor& alt_codes,
                               std::span<const ChangedRange> changed);
  // The outputs' values for the distinct ref windows `ref` and every alt window `alt` (alt row
  // i of ref row of_ref[i], changed within changed[i], or in mirrored columns for reverse
  // complements): {ref values, alt values}, each activated as forward() returns them.
  std::pair<std::vector<Tensor>, std::vector<Tensor>> predict_windowed(
      const Tensor& ref, const Tensor& alt, std::span<const int64_t> of_ref,
      std::span<const ChangedRange> changed, bool mirror);

  Model* model_;
  std::vector<PairOutput> outputs_;
  int64_t control_tracks_;
  bool rc_average_;
  std::optional<IncrementalForward> incremental_;
  std::unique_ptr<explain::WindowedForward> windowed_;
};

/// The reverse complement of each row of (B, L) base codes, as a new tensor.
Tensor reverse_complement_rows(const Tensor& codes);

}  // namespace strand::variants
