// WindowedChanges: the alternates engine's general strategy (alternates/alternate_forward.h): a
// model's outputs for sequences that differ from reference sequences in a few positions, computed
// from the references' activations. A substitution changes only a window of
// columns of each layer (the fastISM observation, Nair et al. 2022), so each alternate carries
// just the change of each layer over its window, and every other column is the reference's.
// In-silico mutagenesis (explain/fast_ism.h) and variant scoring of graphs
// (variants/pair_forward.h) run on it.
//
// What flows between the steps is the change, alt - ref, over a window of columns: (M, C, W),
// alternate m's window starting at column starts[m] of the step's output. Linear steps act on
// the change alone; the others add the reference back around it. Per layer kind:
//   Conv1D       the change convolved without bias (a convolution is linear): tap by tap over
//                the changed columns only, or one padded conv1d (strides, a one-hot input's
//                four channels, a head of few output channels). Wide windows run
//                kernels/cpu/conv1d_change.h, which also applies the ReLU that follows and a
//                residual block's Add of the conv's input as it writes (one pass for
//                x + ReLU(conv(x)))
//   ReLU         max(ref_in + change, 0) - ref_out, in one pass; BatchNorm1D and Dropout
//                (evaluation: y = a x + c per channel) scale the change by a; other
//                activations run on ref_in + change, minus ref_out
//   MaxPool1D / AvgPool1D  the pooled windows the change touches, from the reference around it
//   Crop1D       shifts the window; Add sums the changes, Concat joins them (their hull)
//   GlobalAvgPool1D  ref + the sum of the change / L;  GlobalMaxPool1D  the max of the window's
//                values and the reference's prefix and suffix maxima outside it
//   Dense after Flatten  ref + the weights' columns of the changed positions times the change
//   anything else  runs whole on every alternate (the reference with the change written in).
// Windows are clipped to the columns the outputs read (a crop before a head, a strided layer's
// gaps, the sequence's ends), so a long receptive field costs only what reaches the output. The
// results equal a full pass up to float rounding (a change is added to a reference instead of
// being computed in one piece).
//
// Sequential and Graph models qualify, float32 on the CPU; make() refuses others, or a model
// reading inputs beyond the sequence, with the reason.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::alternates {

struct ChangeStep;

/// The reference sequences' activations that alternates are computed from.
struct WindowedReference {
  std::vector<Tensor> values;                  ///< per step: (G, ...) contiguous
  std::vector<Tensor> prefix_max, suffix_max;  ///< per GlobalMaxPool1D step: (G, C, L + 1)
  std::vector<Tensor> scales;  ///< per BatchNorm1D or Dropout step: its evaluation scale (C)
  std::vector<Tensor>
      functionals;   ///< per counts readout step: F (G, T, C, L), alternates/relu_readout.h
  int64_t rows = 0;  ///< G
};

/// Windowed forward passes of one model for inputs of one length.
class WindowedChanges {
 public:
  /// The plan for `model` on sequences of `length` bases, computing the values of the model's
  /// outputs `outputs` (indices into Model::output_names(); each output's value before its final
  /// activation), or nullptr with the reason in `why`.
  static std::unique_ptr<WindowedChanges> make(Model& model, int64_t length,
                                               std::vector<size_t> outputs, std::string* why);
  ~WindowedChanges();
  WindowedChanges(const WindowedChanges&) = delete;
  WindowedChanges& operator=(const WindowedChanges&) = delete;

  /// Runs the reference sequences `codes` ((G, L) uint8) whole, keeping the values alternates
  /// read (reference_bytes_per_row() per sequence). The model must be in evaluation mode.
  WindowedReference reference(const Tensor& codes) const;

  /// Output k's value for the references: (G, ...).
  const Tensor& reference_output(const WindowedReference& reference, size_t k) const;

  /// The outputs' values for M alternates: alternate m equals reference row slots[m] except
  /// at positions [starts[m], starts[m] + W), which read `letters` ((M, W) uint8 codes; an N is
  /// all-zero). Each window lies inside the sequence. Returns per output (M, ...).
  std::vector<Tensor> alternates(const WindowedReference& reference, std::span<const int64_t> slots,
                                 std::span<const int64_t> starts, const Tensor& letters) const;

  /// How many alternates one call should carry: enough to keep the GEMMs busy, few enough that
  /// a step's changes (M, C, W) stay in cache.
  int64_t alternates_per_call() const;

  /// The bytes reference() keeps per reference sequence (what alternates read: the inputs of
  /// activations and pooling, the outputs), for callers that size their groups of references.
  int64_t reference_bytes_per_row() const;

  /// The number of steps whose output is a window of columns (for tests: 0 means no saving).
  int64_t windowed_steps() const;

  /// The number of outputs read through alternates/relu_readout.h (for tests).
  int64_t readouts() const;

 private:
  WindowedChanges();
  bool plan_steps(Model& model, const std::vector<size_t>& outputs, std::string* why);
  void plan_windows();
  void plan_change_convolutions();
  void plan_readouts();
  std::vector<ChangeStep> steps_;
  std::vector<size_t> output_steps_;
  int64_t length_ = 0;
};

}  // namespace strand::alternates
