// The fast, exact ISM path: a substitution at position p changes only a window of columns of
// each layer, so each mutant carries just that window, and every column outside it is read from
// the reference sequence's activations (computed once per sequence). Per layer kind:
//   Conv1D       the window grows by the receptive span; at stride 1 the change is propagated
//                alone: out = ref_out + sum_k W_k (x - x_ref) shifted by tap k, one GEMM per
//                tap over every mutant's changed columns (the first layer's change is one
//                one-hot column); other strides recompute the window's columns from its inputs
//   pooling      the windows the change touches, recomputed from the window and its neighbours
//   activations, BatchNorm1D (evaluation), Dropout (evaluation): on the window
//   Crop1D       shifts the window; Add and Concat join windows (their hull)
//   GlobalAvgPool1D  ref + the sum of the change / L;  GlobalMaxPool1D  the max of the window and
//                the reference's prefix and suffix maxima outside it
//   Dense after Flatten  ref + the weights' columns of the changed positions times the change
//                (a sparse update)
//   anything else  runs whole on every mutant (the windows written into full activations).
// Sequential and Graph models qualify (layer lists and graphs with residual adds and several
// outputs); a model of another class, or one reading inputs beyond the sequence, does not, and
// ism() runs the brute-force path for it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "explain/ism.h"
#include "explain/target.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::explain {

/// The fast ISM path for one model, target and input length.
class FastIsmPlan {
 public:
  /// The plan for `model` on sequences of `length` bases, or nullptr with the reason in `why`.
  static std::unique_ptr<FastIsmPlan> make(Model& model, int64_t length, const Target& target,
                                           std::string* why);
  ~FastIsmPlan();
  FastIsmPlan(const FastIsmPlan&) = delete;
  FastIsmPlan& operator=(const FastIsmPlan&) = delete;

  /// ISM of `codes` ((N, L) uint8, L the plan's length) as ism() defines it.
  IsmResult run(Model& model, const Tensor& codes, const IsmOptions& options) const;

  /// The number of steps whose output is a window of columns (for tests: 0 means no saving).
  int64_t windowed_steps() const;

  struct Step;

 private:
  FastIsmPlan();
  std::vector<Step> steps_;
  size_t output_step_ = 0;
  Activation activation_ = Activation::kIdentity;
  Target target_;
  int64_t length_ = 0;
};

}  // namespace strand::explain
