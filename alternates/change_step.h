// One step of the windowed strategy's plan (alternates/windowed_changes.h), internal to it: what
// a layer of the model is to a change (a convolution of it, a window of a pooling, a readout,
// ...), and what a step reads when a batch of alternates runs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "alternates/change_windows.h"
#include "alternates/relu_readout.h"
#include "alternates/windowed_changes.h"
#include "kernels/cpu/conv1d_change.h"
#include "layers/layer.h"
#include "ops/conv1d.h"
#include "ops/pooling.h"
#include "tensor/tensor.h"

namespace strand::alternates {

struct ChangeStep {
  enum class Kind {
    kInput,        // the one-hot sequence
    kConv,         // Conv1D: the change convolved
    kPool,         // MaxPool1D / AvgPool1D on a window
    kCrop,         // Crop1D: a shifted window
    kElementwise,  // activations, BatchNorm1D, Dropout on a window
    kMerge,        // Add / Concat of windows
    kFlatten,      // Flatten of a window: kept as the window, read by kSparseDense or whole
    kGlobalAvg,    // GlobalAvgPool1D of a window
    kGlobalMax,    // GlobalMaxPool1D of a window
    kSparseDense,  // Dense of a flattened window
    kReadout,      // Dense of a residual block's crop average, through ReluReadout
    kLayer,        // any layer, run whole on every alternate
  };
  Kind kind = Kind::kLayer;
  Layer* layer = nullptr;
  std::string name;
  std::vector<size_t> inputs;
  Shape shape;        // per-sample output shape
  Shape input_shape;  // its first input's (kSparseDense: the Flatten's input's)
  bool local = false;
  bool keep = false;    // its reference value is read when alternates run
  detail::Range need;   // local: the output columns the consumers read
  int64_t reach = 0;    // local: the widest window a one-column change grows to here
  bool relu = false;    // kElementwise: a ReLU, fused
  bool affine = false;  // kElementwise: BatchNorm1D or Dropout, y = a x + c per channel in
                        // evaluation, so the change is scaled by a
  int64_t kernel = 0;   // kConv
  Conv1DParams conv;    // kConv
  Tensor weight;        // kConv (O, C, K), kSparseDense (O, F)
  Tensor by_position;   // kSparseDense: the weight as (L, C, O), F = C * L read position-major
  Tensor taps;          // kConv: the weight as (K, O, C), each tap an (O, C) matrix
  Tensor flipped;       // kConv reading the sequence: (C, O, K), taps reversed (below)
  kernels::cpu::ChangeConvTaps packed_taps;  // kConv: the weight as conv1d_change reads it
  bool relu_follows = false;  // kConv: its one consumer is a ReLU, applied in conv1d_change
  bool adds_input = false;    // kConv: and that ReLU's one consumer adds it to the conv's input
  Pool1DParams pool;          // kPool
  bool max_pool = true;
  int64_t crop_left = 0;  // kCrop
  bool concat = false;    // kMerge
  int64_t readers = 0;    // consumers in the plan (to free values early)
  bool folded = false;    // a step a kReadout accounts for: not run on alternates
  std::shared_ptr<const ReluReadout> readout;  // kReadout
  size_t readout_conv = 0;  // kReadout: the block's Conv1D (its values: the pre-activations)
};

namespace detail {

// A Conv1D's change is convolved tap by tap with at least these input channels and output
// channels (else padded), and in registers from this many columns (else stacked in one GEMM).
constexpr int64_t kMinChannelsForTaps = 32;
constexpr int64_t kMinRowsForTaps = 8;
constexpr int64_t kMinColumnsInRegisters = 16;

struct StepInputs {
  size_t index;  // the step's
  const ChangeStep& step;
  const WindowedReference& ref;
  std::span<const int64_t> slots;
  const std::vector<Value>& values;
  const std::vector<int64_t>& pending;

  const Value& value(size_t i) const { return values[step.inputs[i]]; }
  const Tensor& reference(size_t i) const { return ref.values[step.inputs[i]]; }
  const Tensor& own_reference() const { return ref.values[index]; }
  // Whether `copy`, a copy of input i's change, may be written in place: nothing else reads the
  // input after this step, and no other value shares its storage.
  bool writable(size_t i, const Tensor& copy) const {
    return copy.storage() != value(i).change.storage() ||
           (pending[step.inputs[i]] == 1 && copy.storage().use_count() == 2);
  }
};

/// Step s's value for the batch (alternates/step_changes.cpp).
Value step_value(const std::vector<ChangeStep>& steps, size_t s, const WindowedReference& ref,
                 std::span<const int64_t> slots, const std::vector<Value>& values,
                 const std::vector<int64_t>& pending);

/// A Conv1D step's change (alternates/conv_change.cpp).
Value conv_change(const StepInputs& in);

}  // namespace detail
}  // namespace strand::alternates
