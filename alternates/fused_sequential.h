// FusedSequential: the alternates engine's strategy for a Sequential whose alternates share their
// changed columns (variants' alleles at the window's centre): alternates computed from the
// reference windows' activations, the reference pass fused (BatchNorm1D folded into the
// convolution before it, the ReLU in its bias pass). A SNV changes one base of the window; a
// convolution or pooling layer's output changes only where its receptive field meets a changed
// input, so up to the first layer that mixes all positions (Flatten, Dense, global pooling) only
// those positions are recomputed, for the whole batch at once, from the reference activation
// around them; from that layer on the whole alternate activation runs. For Basset a SNV's alt
// window costs 12-15% of a full pass. The results are the full pass's, up to float rounding (the
// GEMMs see other shapes, and BatchNorm1D is folded into the convolution before it).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "alternates/alternate_batch.h"
#include "layers/layer.h"
#include "layers/model.h"
#include "layers/sequential.h"
#include "ops/conv1d.h"
#include "tensor/tensor.h"

namespace strand::alternates {

/// The reference windows' activations that alternate windows are computed from.
struct SequentialReference {
  std::vector<Tensor> inputs;  ///< per spatial layer of the prefix: its input (B, C, L_in)
  Tensor split;                ///< the prefix's output (B, C, L_split)
  Tensor output;               ///< the model's output before its final activation (B, ...)
  int64_t batch = 0;
  /// Per convolution followed by BatchNorm1D: its weights and bias with the normalisation
  /// folded in (the reference pass's, so that alternate windows use the same).
  std::vector<Tensor> folded_weights, folded_biases;
};

/// Fused alternates for one Sequential model and input length.
class FusedSequential {
 public:
  /// The plan for `model` with inputs of `length` bases, or nullopt when it does not apply: not
  /// a Sequential on the CPU, a first layer that is not a Conv1D, a layer before the first
  /// position-mixing one that is neither a Conv1D, MaxPool1D, AvgPool1D, BatchNorm1D, ReLU,
  /// Sigmoid nor Dropout, no position-mixing layer, or fewer than two convolution and pooling
  /// layers before it (a single convolution, as the reference model's fused
  /// Conv1D -> ReLU -> GlobalMaxPool1D, is cheaper whole).
  static std::optional<FusedSequential> plan(Model& model, int64_t length);

  /// Runs the reference windows ((B, L) codes) in full, keeping what alternate windows need and
  /// the model's output before its final activation.
  SequentialReference reference(const Tensor& codes) const;

  /// The output before the final activation for `batch`'s alternates, all of whose changes are
  /// recomputed as one range (the union of their changed columns).
  Tensor alternates(const SequentialReference& kept, const AlternateBatch& batch) const;

 private:
  enum class StepKind { kConv, kMaxPool, kAvgPool, kPointwise };
  struct Step {
    StepKind kind = StepKind::kPointwise;
    Layer* layer = nullptr;
    int64_t in_length = 0;   // positions of its input
    int64_t out_length = 0;  // positions of its output
    int64_t kernel = 1, stride = 1, dilation = 1, pad_left = 0;
    int spatial_index = -1;  // index into SequentialReference::inputs
    // A convolution: the BatchNorm1D after it folded in (index into folded_weights, or -1),
    // and the ReLU after that applied in its bias pass. A folded BatchNorm1D or ReLU step is
    // `absorbed`.
    int fold = -1;
    bool relu = false;
    bool absorbed = false;
  };

  FusedSequential(Sequential& model, std::vector<Step> steps, size_t split, size_t end,
                  int64_t length);
  Tensor run_suffix(const Tensor& split) const;
  void fold_batch_norms(SequentialReference& kept) const;
  // A convolution step on `x` (codes or (B, C, L) floats) with padding `params`, its BatchNorm
  // folded in and its ReLU fused as the plan says.
  Tensor convolve(const Step& step, const Tensor& x, const Conv1DParams& params,
                  const SequentialReference& kept) const;
  // One prefix step's values over its output columns `out` for the batch, from `patch`, the
  // alternates' values of its input over `range`.
  Tensor step_values(const Step& step, const SequentialReference& kept, const AlternateBatch& batch,
                     const Tensor& patch, ColumnRange range, ColumnRange out) const;

  Sequential* model_;
  std::vector<Step> steps_;  // the prefix: layers [0, split_)
  size_t split_ = 0;         // the first position-mixing layer
  size_t end_ = 0;           // layers run for the output (the final activation left out)
  int64_t length_ = 0;
};

}  // namespace strand::alternates
