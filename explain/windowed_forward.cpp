// Windowed forward passes (explain/windowed_forward.h): the plan of steps, the columns each step's
// consumers read, the reference pass, and the changes of a batch of alternates.
//
// Layout: a change is (M, C, W) float, contiguous, so that each alternate's change is a (C, W)
// matrix a Conv1D's taps multiply, and conv1d, pooling or activations see an ordinary batch.
// Alternate m's window starts at column starts[m] of the step's output and lies inside the columns
// the step's consumers read (its `need`, a range inside [0, L)); the change is 0 outside it.
#include "explain/windowed_forward.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "explain/relu_readout.h"
#include "kernels/cpu/conv1d_change.h"
#include "kernels/cpu/gemm.h"
#include "layers/channel_affine.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/graph.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "ops/conv1d.h"
#include "ops/matmul.h"
#include "ops/pooling.h"
#include "ops/shape.h"

namespace strand::explain {
namespace {

// Floor and ceiling of a / b for b > 0 and any sign of a.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

bool is_elementwise(const std::string& type) {
  static const std::set<std::string> kTypes = {"ReLU",     "Sigmoid", "Tanh",        "Exp",
                                               "Softplus", "GELU",    "BatchNorm1D", "Dropout"};
  return kTypes.count(type) > 0;
}

// Columns [lo, hi).
struct Range {
  int64_t lo = 0, hi = 0;
};

Range hull(Range a, Range b) {
  if (a.hi <= a.lo) return b;
  if (b.hi <= b.lo) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

Range clip(Range r, int64_t length) {
  return {std::clamp<int64_t>(r.lo, 0, length), std::clamp<int64_t>(r.hi, 0, length)};
}

// One step's value for a batch of M alternates.
struct Value {
  bool local = false;
  Tensor change;                // local: (M, C, W), alt - ref over each alternate's window
  std::vector<int64_t> starts;  // local: per alternate
  int64_t width = 0;            // local: W
  bool relu_applied = false;    // local: a Conv1D's change with its ReLU's applied (one pass)
  bool input_added = false;     // local: and the residual Add of the Conv1D's input too
  Tensor full;                  // global: (M, ...) the alternates' values
};

// Windows for `out`: alternate m's change spans [a[m], b[m]) (its natural window); each is
// clipped to `need`, the common width is the widest clipped one (at least 1), and each window is
// placed inside `need` covering its clipped span.
void place(const std::vector<int64_t>& a, const std::vector<int64_t>& b, Range need, Value& out) {
  int64_t width = 1;
  for (size_t m = 0; m < a.size(); ++m) {
    width = std::max(width, std::min(b[m], need.hi) - std::max(a[m], need.lo));
  }
  width = std::min(width, need.hi - need.lo);
  out.local = true;
  out.width = width;
  out.starts.resize(a.size());
  for (size_t m = 0; m < a.size(); ++m) {
    out.starts[m] = std::clamp(std::max(a[m], need.lo), need.lo, need.hi - width);
  }
}

// `change` ((M, C, W_from) over windows `from`) over windows (to, width): 0 where it has none.
Tensor rewindow(const Tensor& change, const std::vector<int64_t>& from,
                const std::vector<int64_t>& to, int64_t width) {
  const int64_t m_count = change.size(0), channels = change.size(1), w_from = change.size(2);
  if (width == w_from && to == from) return change;
  Tensor out = Tensor::empty({m_count, channels, width});
  const float* in = change.data<float>();
  float* o = out.data<float>();
#pragma omp parallel for schedule(static) if (m_count * channels * width >= 65536)
  for (int64_t m = 0; m < m_count; ++m) {
    const auto k = static_cast<size_t>(m);
    const int64_t lo = std::clamp<int64_t>(from[k] - to[k], 0, width);
    const int64_t hi = std::clamp<int64_t>(from[k] + w_from - to[k], lo, width);
    for (int64_t c = 0; c < channels; ++c) {
      float* row = o + (m * channels + c) * width;
      std::fill(row, row + lo, 0.0F);
      if (hi > lo) {
        std::memcpy(row + lo, in + (m * channels + c) * w_from + (to[k] + lo - from[k]),
                    static_cast<size_t>(hi - lo) * 4);
      }
      std::fill(row + hi, row + width, 0.0F);
    }
  }
  return out;
}

Tensor rewindow(const Value& v, const std::vector<int64_t>& to, int64_t width) {
  return rewindow(v.change, v.starts, to, width);
}

// Columns [starts[m], starts[m] + width) of row slots[m] of `ref` ((G, C, L) contiguous), 0
// outside [0, L), plus `change` where given: (M, C, width), the alternates' values there.
Tensor values_over(const Tensor& ref, std::span<const int64_t> slots,
                   const std::vector<int64_t>& starts, int64_t width, const Value* change) {
  const int64_t channels = ref.size(1), length = ref.size(2);
  const auto m_count = static_cast<int64_t>(slots.size());
  Tensor out = Tensor::empty({m_count, channels, width});
  const float* r = ref.data<float>();
  float* o = out.data<float>();
#pragma omp parallel for schedule(static) if (m_count * channels * width >= 65536)
  for (int64_t m = 0; m < m_count; ++m) {
    const auto k = static_cast<size_t>(m);
    const int64_t start = starts[k];
    const int64_t lo = std::clamp<int64_t>(-start, 0, width);
    const int64_t hi = std::clamp<int64_t>(length - start, lo, width);
    int64_t c_lo = 0, c_hi = 0;  // the change's columns in this window
    if (change != nullptr) {
      c_lo = std::clamp<int64_t>(change->starts[k] - start, 0, width);
      c_hi = std::clamp<int64_t>(change->starts[k] + change->width - start, c_lo, width);
    }
    for (int64_t c = 0; c < channels; ++c) {
      float* row = o + (m * channels + c) * width;
      const float* ref_row = r + (slots[k] * channels + c) * length + start;
      std::fill(row, row + lo, 0.0F);
      if (hi > lo) std::memcpy(row + lo, ref_row + lo, static_cast<size_t>(hi - lo) * 4);
      std::fill(row + hi, row + width, 0.0F);
      if (c_hi > c_lo) {
        const float* d = change->change.data<float>() + (m * channels + c) * change->width +
                         (start + c_lo - change->starts[k]);
#pragma omp simd
        for (int64_t j = 0; j < c_hi - c_lo; ++j) row[c_lo + j] += d[j];
      }
    }
  }
  return out;
}

// values - ref over the windows: `values` ((M, C, W)) becomes the change, in place.
void subtract_reference(Tensor& values, const Tensor& ref, std::span<const int64_t> slots,
                        const std::vector<int64_t>& starts) {
  const int64_t m_count = values.size(0), channels = values.size(1), width = values.size(2);
  const int64_t length = ref.size(2);
  float* o = values.data<float>();
  const float* r = ref.data<float>();
#pragma omp parallel for schedule(static) if (m_count * channels * width >= 65536)
  for (int64_t m = 0; m < m_count; ++m) {
    const auto k = static_cast<size_t>(m);
    for (int64_t c = 0; c < channels; ++c) {
      float* row = o + (m * channels + c) * width;
      const float* ref_row = r + (slots[k] * channels + c) * length + starts[k];
#pragma omp simd
      for (int64_t j = 0; j < width; ++j) row[j] -= ref_row[j];
    }
  }
}

// The alternates' full values (M, C, L): the reference rows with each change added.
Tensor materialize(const Value& v, const Tensor& ref, std::span<const int64_t> slots) {
  const std::vector<int64_t> zero(slots.size(), 0);
  return values_over(ref, slots, zero, ref.size(2), &v);
}

// Rows `slots` of a reference (G, ...): (M, ...).
Tensor reference_rows(const Tensor& ref, std::span<const int64_t> slots) {
  Shape shape = ref.shape();
  const int64_t row = ref.numel() / shape[0];
  shape[0] = static_cast<int64_t>(slots.size());
  Tensor out = Tensor::empty(shape);
  for (size_t m = 0; m < slots.size(); ++m) {
    std::memcpy(out.data<float>() + static_cast<int64_t>(m) * row,
                ref.data<float>() + slots[m] * row, static_cast<size_t>(row) * 4);
  }
  return out;
}

}  // namespace

struct WindowedForward::Step {
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
  Range need;           // local: the output columns the consumers read
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

WindowedForward::WindowedForward() = default;
WindowedForward::~WindowedForward() = default;

int64_t WindowedForward::windowed_steps() const {
  int64_t count = 0;
  for (const Step& step : steps_) count += step.local && step.kind != Step::Kind::kInput ? 1 : 0;
  return count;
}

int64_t WindowedForward::reference_bytes_per_row() const {
  int64_t bytes = 0;
  for (const Step& step : steps_) {
    if (step.keep) bytes += numel(step.shape) * 4;
    if (step.kind == Step::Kind::kGlobalMax) bytes += 2 * (numel(step.input_shape) + 1) * 4;
    if (step.kind == Step::Kind::kReadout) bytes += step.readout->bytes_per_row();
  }
  return std::max<int64_t>(bytes, 1);
}

// A Conv1D's change is convolved tap by tap with at least these input channels and output
// channels (else padded), and in registers from this many columns (else stacked in one GEMM).
constexpr int64_t kMinChannelsForTaps = 32;
constexpr int64_t kMinRowsForTaps = 8;
constexpr int64_t kMinColumnsInRegisters = 16;

int64_t WindowedForward::alternates_per_call() const {
  int64_t widest = 1;  // floats of one alternate's largest change
  for (const Step& step : steps_) {
    if (step.local && step.shape.size() == 2) widest = std::max(widest, step.shape[0] * step.reach);
  }
  // 2 MiB (2^19 floats): the wide steps run an alternate at a time (conv1d_change), so a
  // smaller batch costs their kernel nothing and keeps the passes between them in cache (BPNet
  // variant scoring 4.45 s against 4.7 s at 4 MiB; ISM the same within the machine's noise).
  constexpr int64_t kBudget = int64_t{1} << 19;
  return std::clamp<int64_t>(kBudget / widest, 4, 256);
}

namespace {

using Step = WindowedForward::Step;

// Classifies one layer of the plan given its inputs' steps.
// A (O, C, K) weight as (C, O, K) with the taps reversed: flipped[c, o, j] = W[o, c, K - 1 - j].
Tensor flipped_taps(const Tensor& weight) {
  const int64_t o_count = weight.size(0), c_count = weight.size(1), k_count = weight.size(2);
  Tensor flipped = Tensor::empty({c_count, o_count, k_count});
  const float* w = weight.data<float>();
  float* f = flipped.data<float>();
  for (int64_t o = 0; o < o_count; ++o) {
    for (int64_t c = 0; c < c_count; ++c) {
      for (int64_t j = 0; j < k_count; ++j) {
        f[(c * o_count + o) * k_count + j] = w[(o * c_count + c) * k_count + k_count - 1 - j];
      }
    }
  }
  return flipped;
}

void classify(Step& step, const std::vector<Step>& steps, const Shape& in_shape) {
  using Kind = Step::Kind;
  const std::string type = step.layer->type_name();
  bool all_local = true;
  for (const size_t from : step.inputs) {
    all_local = all_local && steps[from].local && steps[from].kind != Kind::kFlatten;
  }
  const bool one_local_input = all_local && step.inputs.size() == 1 && in_shape.size() == 2;
  step.local = true;
  if (type == "Conv1D" && one_local_input) {
    auto* conv = dynamic_cast<Conv1D*>(step.layer);
    step.kind = Kind::kConv;
    step.kernel = conv->kernel_size();
    step.conv = conv->params_for_length(in_shape[1]);
    step.weight = conv->weight().value().contiguous();
    step.taps = step.weight.transpose(0, 2).transpose(1, 2).contiguous();  // (K, O, C)
    if (step.inputs.size() == 1 && step.inputs[0] == 0) step.flipped = flipped_taps(step.weight);
  } else if ((type == "MaxPool1D" || type == "AvgPool1D") && one_local_input) {
    step.max_pool = type == "MaxPool1D";
    step.pool = step.max_pool ? dynamic_cast<MaxPool1D*>(step.layer)->params()
                              : dynamic_cast<AvgPool1D*>(step.layer)->params();
    // A last, shorter window (ceil_mode) would read the zeros past the end.
    const bool partial =
        step.pool.ceil_mode && (in_shape[1] - step.pool.kernel) % step.pool.stride != 0;
    step.kind = partial ? Kind::kLayer : Kind::kPool;
    step.local = !partial;
  } else if (type == "Crop1D" && one_local_input) {
    step.kind = Kind::kCrop;
    step.crop_left = (in_shape[1] - step.shape[1]) / 2;
  } else if (is_elementwise(type) && one_local_input) {
    step.kind = Kind::kElementwise;
    step.relu = type == "ReLU";
    step.affine = type == "BatchNorm1D" || type == "Dropout";
  } else if ((type == "Add" || type == "Concat") && all_local && in_shape.size() == 2) {
    step.kind = Kind::kMerge;
    step.concat = type == "Concat";
  } else if (type == "Flatten" && one_local_input) {
    step.kind = Kind::kFlatten;
  } else if (type == "GlobalAvgPool1D" && one_local_input) {
    step.kind = Kind::kGlobalAvg;
    step.local = false;
  } else if (type == "GlobalMaxPool1D" && one_local_input) {
    step.kind = Kind::kGlobalMax;
    step.local = false;
  } else if (type == "Dense" && step.inputs.size() == 1 &&
             steps[step.inputs[0]].kind == Kind::kFlatten) {
    step.kind = Kind::kSparseDense;
    step.weight = dynamic_cast<Dense*>(step.layer)->weight().value().contiguous();
    step.local = false;
  } else {
    step.kind = Kind::kLayer;
    step.local = false;
  }
}

}  // namespace

std::unique_ptr<WindowedForward> WindowedForward::make(Model& model, int64_t length,
                                                       std::vector<size_t> outputs,
                                                       std::string* why) {
  const auto refuse = [why](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return std::unique_ptr<WindowedForward>();
  };
  for (const auto& [name, parameter] : model.named_parameters()) {
    const bool counter = parameter.dtype() == DType::kFloat64 && parameter.dim() == 0;
    if (parameter.device() != Device::cpu() || (parameter.dtype() != DType::kFloat32 && !counter)) {
      return refuse("it runs float32 models on the CPU, and parameter '" + name + "' is " +
                    parameter.value().describe());
    }
  }
  // The layers and what each reads, in order: step 0 is the sequence.
  struct Node {
    Layer* layer;
    std::string name;
    std::vector<std::string> inputs;
  };
  std::vector<Node> nodes;
  std::vector<std::string> output_nodes;
  if (auto* sequential = dynamic_cast<Sequential*>(&model)) {
    const size_t count =
        sequential->size() - (sequential->output_activation(0) != Activation::kIdentity ? 1 : 0);
    std::string previous = kSequenceInput;
    for (size_t i = 0; i < count; ++i) {
      nodes.push_back({sequential->layer(i).get(), std::to_string(i), {previous}});
      previous = std::to_string(i);
    }
    for (const size_t output : outputs) {
      if (output != 0) return refuse(fmt::format("a Sequential has one output, not {}", output));
      output_nodes.push_back(previous);
    }
  } else if (auto* graph = dynamic_cast<Graph*>(&model)) {
    for (const Graph::Node& node : graph->nodes()) {
      nodes.push_back({node.layer.get(), node.name, node.inputs});
    }
    for (const size_t output : outputs) {
      output_nodes.push_back(graph->output_value_node(output).name);
    }
  } else {
    return refuse("it covers Sequential and Graph models, not " + model.type_name());
  }
  // The nodes the outputs need.
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i].name] = i;
  std::vector<bool> needed(nodes.size(), false);
  std::vector<std::string> stack = output_nodes;
  while (!stack.empty()) {
    const std::string name = stack.back();
    stack.pop_back();
    if (name == kSequenceInput) continue;
    const auto it = index.find(name);
    if (it == index.end()) return refuse("the model reads an input '" + name + "'");
    if (needed[it->second]) continue;
    needed[it->second] = true;
    for (const std::string& input : nodes[it->second].inputs) stack.push_back(input);
  }

  auto plan = std::unique_ptr<WindowedForward>(new WindowedForward());
  plan->length_ = length;
  Step input;
  input.kind = Step::Kind::kInput;
  input.name = kSequenceInput;
  input.shape = {4, length};
  input.local = true;
  plan->steps_.push_back(input);
  std::map<std::string, size_t> step_of = {{kSequenceInput, 0}};
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!needed[i]) continue;
    Step step;
    step.layer = nodes[i].layer;
    step.name = nodes[i].name;
    std::vector<Shape> input_shapes;
    for (const std::string& name : nodes[i].inputs) {
      const size_t from = step_of.at(name);
      step.inputs.push_back(from);
      input_shapes.push_back(plan->steps_[from].shape);
      ++plan->steps_[from].readers;
    }
    try {
      step.shape = step.layer->output_shape_of(input_shapes);
    } catch (const Error& error) {
      return refuse(fmt::format("node '{}': {}", step.name, error.what()));
    }
    step.input_shape = input_shapes.empty() ? Shape{} : input_shapes[0];
    classify(step, plan->steps_, step.input_shape);
    if (step.kind == Step::Kind::kSparseDense) {
      step.input_shape = plan->steps_[step.inputs[0]].input_shape;  // the Flatten's input's
      step.by_position =
          step.weight.reshape({step.weight.size(0), step.input_shape[0], step.input_shape[1]})
              .transpose(0, 2)
              .contiguous();
    }
    step_of[step.name] = plan->steps_.size();
    plan->steps_.push_back(std::move(step));
  }
  for (const std::string& name : output_nodes) {
    plan->output_steps_.push_back(step_of.at(name));
    ++plan->steps_[plan->output_steps_.back()].readers;
  }
  if (plan->windowed_steps() == 0) {
    return refuse("no layer of the model reads the sequence locally");
  }
  plan->plan_windows();
  plan->plan_change_convolutions();
  plan->plan_readouts();
  return plan;
}

int64_t WindowedForward::readouts() const {
  int64_t count = 0;
  for (const Step& step : steps_) count += step.kind == Step::Kind::kReadout ? 1 : 0;
  return count;
}

// An output Dense over GlobalAvgPool1D(Crop1D*(Add(x, ReLU(Conv1D(x))))), each step read only by
// the next, with the block fused for conv1d_change: the counts head of BPNet and ChromBPNet.
// Its change is a readout of x's change (explain/relu_readout.h), so the last block's
// convolution, ReLU and Add, the crop and the average never run on alternates.
void WindowedForward::plan_readouts() {
  using Kind = Step::Kind;
  if (!ReluReadout::kAvailable) return;
  constexpr int64_t kMaxReadouts = 64;  // Dense units: F costs one (C, L) map per unit and row
  for (const size_t d : output_steps_) {
    Step& dense = steps_[d];
    if (dense.kind != Kind::kLayer || dense.layer->type_name() != "Dense" ||
        dense.inputs.size() != 1 || dense.readers != 1) {
      continue;
    }
    Step& pool = steps_[dense.inputs[0]];
    if (pool.kind != Kind::kGlobalAvg || pool.readers != 1) continue;
    std::vector<size_t> folded = {dense.inputs[0]};
    int64_t crop_lo = 0;
    size_t s = pool.inputs[0];
    while (steps_[s].kind == Kind::kCrop && steps_[s].readers == 1) {
      crop_lo += steps_[s].crop_left;
      folded.push_back(s);
      s = steps_[s].inputs[0];
    }
    const Step& add = steps_[s];
    if (add.kind != Kind::kMerge || add.concat || add.readers != 1 || add.inputs.size() != 2) {
      continue;
    }
    const Tensor weight = dynamic_cast<Dense*>(dense.layer)->weight().value().contiguous();
    for (const size_t r : add.inputs) {
      const Step& relu = steps_[r];
      if (relu.kind != Kind::kElementwise || !relu.relu || relu.readers != 1) continue;
      const size_t c = relu.inputs[0];
      const Step& conv = steps_[c];
      const size_t x = conv.inputs[0];
      const bool residual = add.inputs[0] == x || add.inputs[1] == x;
      if (conv.kind != Kind::kConv || !conv.relu_follows || !conv.adds_input || !residual ||
          conv.readers != 1 || weight.size(0) > kMaxReadouts || weight.size(1) != conv.shape[0] ||
          conv.kernel > kernels::cpu::kMaxChangeScreenTaps) {
        continue;
      }
      const int64_t crop_width = pool.input_shape[1];
      Tensor readout = weight.clone();  // (T, O): the weight on each channel's column sum
      for (int64_t i = 0; i < readout.numel(); ++i) {
        readout.data<float>()[i] /= static_cast<float>(crop_width);
      }
      dense.kind = Kind::kReadout;
      dense.readout_conv = c;
      dense.readout =
          std::make_shared<ReluReadout>(conv.weight, conv.conv, conv.input_shape[1], conv.shape[1],
                                        readout, crop_lo, crop_lo + crop_width);
      folded.insert(folded.end(), {s, r, c});
      for (const size_t f : folded) steps_[f].folded = true;
      break;
    }
  }
}

// The Conv1D steps whose changes can be wide enough for kernels/cpu/conv1d_change.h (their
// input's reach, after plan_windows) get its packed weights; then Conv1D -> ReLU -> Add(the
// conv's input, ReLU), each read only by the next, is fused: the kernel applies the ReLU and
// the Add as it writes.
void WindowedForward::plan_change_convolutions() {
  for (Step& step : steps_) {
    if (step.kind != Step::Kind::kConv || !kernels::cpu::kChangeConvInRegisters ||
        step.conv.stride != 1 || step.weight.size(1) < kMinChannelsForTaps ||
        step.weight.size(0) < kMinRowsForTaps ||
        steps_[step.inputs[0]].reach < kMinColumnsInRegisters) {
      continue;
    }
    step.packed_taps = kernels::cpu::pack_change_conv_taps(
        step.weight.data<float>(), step.weight.size(0), step.weight.size(1), step.kernel);
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Step& relu = steps_[s];
    if (relu.kind != Step::Kind::kElementwise || !relu.relu) continue;
    Step& conv = steps_[relu.inputs[0]];
    if (conv.kind != Step::Kind::kConv || conv.readers != 1 || conv.packed_taps.packed.empty()) {
      continue;
    }
    conv.relu_follows = true;
    if (relu.readers != 1 || conv.packed_taps.out_channels != conv.packed_taps.in_channels) {
      continue;
    }
    for (const Step& add : steps_) {
      const auto reads = [&add](size_t from) {
        return std::find(add.inputs.begin(), add.inputs.end(), from) != add.inputs.end();
      };
      conv.adds_input = conv.adds_input ||
                        (add.kind == Step::Kind::kMerge && !add.concat && add.inputs.size() == 2 &&
                         reads(s) && reads(conv.inputs[0]) && add.shape == conv.input_shape);
    }
  }
}

void WindowedForward::plan_windows() {
  // The reference values alternates read (the others are freed during the reference pass).
  steps_[0].keep = true;
  const auto keep_local_input = [this](const Step& step, size_t i) {
    const Step& from = steps_[step.inputs[i]];
    steps_[from.kind == Step::Kind::kFlatten ? from.inputs[0] : step.inputs[i]].keep = true;
  };
  for (Step& step : steps_) {
    switch (step.kind) {
      case Step::Kind::kPool:
        step.keep = true;
        keep_local_input(step, 0);
        break;
      case Step::Kind::kElementwise:
        step.keep = !step.affine && !step.relu;  // generic: f(ref_in + change) - ref_out
        if (!step.affine) keep_local_input(step, 0);
        break;
      case Step::Kind::kGlobalMax:
        keep_local_input(step, 0);
        break;
      case Step::Kind::kGlobalAvg:
      case Step::Kind::kSparseDense:
        step.keep = true;
        break;
      case Step::Kind::kLayer:
        for (size_t i = 0; i < step.inputs.size(); ++i) {
          if (steps_[step.inputs[i]].local) keep_local_input(step, i);
        }
        break;
      default:
        break;
    }
  }
  for (const size_t s : output_steps_) {
    steps_[s].keep = true;
    if (steps_[s].kind == Step::Kind::kFlatten) steps_[steps_[s].inputs[0]].keep = true;
  }

  // Backwards: the columns of each local step that its consumers read. An output reads all of
  // its columns, a global step all of its input's.
  const auto columns = [this](size_t s) {
    return steps_[s].shape.size() == 2 ? steps_[s].shape[1] : int64_t{0};
  };
  for (const size_t s : output_steps_) steps_[s].need = {0, columns(s)};
  for (size_t s = steps_.size(); s-- > 1;) {
    const Step& step = steps_[s];
    for (const size_t from : step.inputs) {
      const int64_t l_in = columns(from);
      Range read{0, l_in};
      if (step.local && step.need.hi > step.need.lo) {
        const Range n = step.need;
        switch (step.kind) {
          case Step::Kind::kConv: {
            const int64_t span = (step.kernel - 1) * step.conv.dilation;
            read = {n.lo * step.conv.stride - step.conv.pad_left,
                    (n.hi - 1) * step.conv.stride - step.conv.pad_left + span + 1};
            break;
          }
          case Step::Kind::kPool:
            read = {n.lo * step.pool.stride, (n.hi - 1) * step.pool.stride + step.pool.kernel};
            break;
          case Step::Kind::kCrop:
            read = {n.lo + step.crop_left, n.hi + step.crop_left};
            break;
          case Step::Kind::kElementwise:
          case Step::Kind::kMerge:
            read = n;
            break;
          default:
            break;
        }
      }
      steps_[from].need = hull(steps_[from].need, clip(read, l_in));
    }
  }
  // Forwards: the widest window a one-column change grows to, within what is read.
  for (size_t s = 0; s < steps_.size(); ++s) {
    Step& step = steps_[s];
    if (!step.local) continue;
    if (step.need.hi <= step.need.lo) step.need = {0, std::max<int64_t>(1, columns(s))};
    int64_t grown = 1;
    for (const size_t from : step.inputs) {
      const int64_t w = steps_[from].reach;
      switch (step.kind) {
        case Step::Kind::kConv:
          grown = std::max(grown,
                           (w - 1 + (step.kernel - 1) * step.conv.dilation) / step.conv.stride + 1);
          break;
        case Step::Kind::kPool:
          grown = std::max(grown, (w + step.pool.kernel - 2) / step.pool.stride + 1);
          break;
        default:
          grown = std::max(grown, w);
      }
    }
    step.reach = std::min(grown, step.need.hi - step.need.lo);
  }
}

namespace {

// What one step reads for a batch of alternates.
struct StepInputs {
  size_t index;  // the step's
  const Step& step;
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

// Per alternate, the output columns [ceil((a + pad - span) / stride), floor((b - 1 + pad) /
// stride) + 1) that a change over input columns [a, b) reaches.
void grown_windows(const Value& v, int64_t pad, int64_t span, int64_t stride,
                   std::vector<int64_t>& a, std::vector<int64_t>& b) {
  a.resize(v.starts.size());
  b.resize(v.starts.size());
  for (size_t m = 0; m < v.starts.size(); ++m) {
    a[m] = ceil_div(v.starts[m] + pad - span, stride);
    b[m] = floor_div(v.starts[m] + v.width - 1 + pad, stride) + 1;
  }
}

// conv1d of the change over each alternate's read window [r[m], r[m] + read): zeros around
// the change are padding where every window sits the same way around it, else copied in.
Tensor convolve_padded(const Step& step, const Value& v, const std::vector<int64_t>& r,
                       int64_t read) {
  const int64_t left = v.starts[0] - r[0], right = r[0] + read - (v.starts[0] + v.width);
  bool uniform = left >= 0 && right >= 0;
  for (size_t m = 1; m < r.size() && uniform; ++m) uniform = v.starts[m] - r[m] == left;
  Conv1DParams params = step.conv;
  params.pad_left = uniform ? left : 0;
  params.pad_right = uniform ? right : 0;
  return ops::conv1d(uniform ? v.change : rewindow(v, r, read), step.weight, Tensor(), params);
}

// Alternate m's output column u reads input column u - tap_shift(m, k) through tap k.
int64_t tap_shift(const Step& step, const Value& v, const Value& out, int64_t m, int64_t k) {
  const auto i = static_cast<size_t>(m);
  return v.starts[i] + step.conv.pad_left - k * step.conv.dilation - out.starts[i];
}

// convolve_taps for narrow windows (a Basset layer's few columns): every alternate's columns in
// one GEMM for all taps, (M * W_in, C) @ (C, K * O). Row m * W_in + i holds input column i of
// alternate m through every tap, so that an alternate's products lie together (as (K * O, M *
// W_in), the rows of one alternate lay M * W_in apart and its short runs missed the cache on most
// rows: 11% of a Basset ISM). Each row then adds to its output column as a run over the O
// channels, in a (W_out, O) scratch transposed into place per alternate; the sums over taps run
// in tap order.
Tensor convolve_stacked_taps(const Step& step, const Value& v, const Value& out) {
  const auto m_count = static_cast<int64_t>(v.starts.size());
  const int64_t k_count = step.kernel, o_count = step.taps.size(1), c_count = step.taps.size(2);
  const int64_t w_in = v.width, w_out = out.width;
  Tensor result = Tensor::empty({m_count, o_count, w_out});
  float* o = result.data<float>();
  const float* d = v.change.data<float>();
  Tensor columns = Tensor::empty({m_count * w_in, c_count});
  float* col = columns.data<float>();
  for (int64_t m = 0; m < m_count; ++m) {
    for (int64_t c = 0; c < c_count; ++c) {
      const float* from = d + (m * c_count + c) * w_in;
      for (int64_t i = 0; i < w_in; ++i) col[(m * w_in + i) * c_count + c] = from[i];
    }
  }
  const int64_t n = k_count * o_count;
  Tensor product = Tensor::empty({m_count * w_in, n});
  const float* p = product.data<float>();
  // step.taps (K * O, C) read transposed.
  kernels::cpu::gemm<float>(m_count * w_in, n, c_count, col, c_count, 1, step.taps.data<float>(), 1,
                            c_count, 0.0F, product.data<float>(), n);
  std::vector<float> sums(static_cast<size_t>(w_out * o_count));  // (W_out, O)
  for (int64_t m = 0; m < m_count; ++m) {
    std::fill(sums.begin(), sums.end(), 0.0F);
    for (int64_t i = 0; i < w_in; ++i) {
      for (int64_t k = 0; k < k_count; ++k) {
        const int64_t u = i + tap_shift(step, v, out, m, k);
        if (u < 0 || u >= w_out) continue;
        float* to = sums.data() + u * o_count;
        const float* from = p + (m * w_in + i) * n + k * o_count;
#pragma omp simd
        for (int64_t oc = 0; oc < o_count; ++oc) to[oc] += from[oc];
      }
    }
    float* out_m = o + m * o_count * w_out;
    for (int64_t oc = 0; oc < o_count; ++oc) {
      for (int64_t u = 0; u < w_out; ++u) out_m[oc * w_out + u] = sums[u * o_count + oc];
    }
  }
  return result;
}

// A stride-1 convolution of the change tap by tap, over the change's columns only (a padded
// conv1d would also multiply the zeros around it: twice the work for a residual block's window):
// out[m, :, u] += W_k change[m, :, u - shift(m, k)]. Wide windows accumulate each tap's GEMM
// straight into the output; narrow ones go to convolve_stacked_taps.
Tensor convolve_taps(const Step& step, const Value& v, const Value& out) {
  if (v.width < 32) return convolve_stacked_taps(step, v, out);
  const auto m_count = static_cast<int64_t>(v.starts.size());
  const int64_t k_count = step.kernel, o_count = step.taps.size(1), c_count = step.taps.size(2);
  const int64_t w_in = v.width, w_out = out.width;
  const int64_t middle = k_count / 2;
  // The middle tap's GEMM writes its columns (beta 0), the rest are zeroed.
  Tensor result = Tensor::empty({m_count, o_count, w_out});
  float* o = result.data<float>();
  const float* taps = step.taps.data<float>();
  const float* d = v.change.data<float>();
  const auto shift = [&](int64_t m, int64_t k) { return tap_shift(step, v, out, m, k); };
  for (int64_t m = 0; m < m_count; ++m) {
    const int64_t s_mid = shift(m, middle);
    const int64_t lo = std::clamp<int64_t>(s_mid, 0, w_out);
    const int64_t hi = std::clamp<int64_t>(s_mid + w_in, lo, w_out);
    for (int64_t oc = 0; oc < o_count; ++oc) {
      float* row = o + (m * o_count + oc) * w_out;
      std::fill(row, row + lo, 0.0F);
      std::fill(row + hi, row + w_out, 0.0F);
    }
    for (int64_t i = 0; i < k_count; ++i) {
      const int64_t k = (middle + i) % k_count;  // the middle tap first
      const int64_t s = shift(m, k);
      const int64_t v0 = std::max<int64_t>(0, -s), v1 = std::min(w_in, w_out - s);
      if (v1 <= v0) continue;
      kernels::cpu::gemm<float>(o_count, v1 - v0, c_count, taps + k * o_count * c_count, c_count, 1,
                                d + m * c_count * w_in + v0, w_in, 1, i == 0 ? 0.0F : 1.0F,
                                o + m * o_count * w_out + s + v0, w_out);
    }
  }
  return result;
}

// The wide windows' convolution with a block of outputs in registers over every tap
// (kernels/cpu/conv1d_change.h), and the ReLU and residual Add that follow applied where the
// plan fused them.
Tensor convolve_in_registers(const StepInputs& in, const Value& v, const Value& out) {
  const Step& step = in.step;
  const auto m_count = static_cast<int64_t>(v.starts.size());
  const int64_t o_count = step.packed_taps.out_channels, c_count = step.packed_taps.in_channels;
  Tensor result = Tensor::empty({m_count, o_count, out.width});
  const Tensor& ref = in.own_reference();  // (G, O, L): the ReLU's input
  const int64_t length = step.shape[1];
  for (int64_t m = 0; m < m_count; ++m) {
    const auto i = static_cast<size_t>(m);
    const float* relu_reference =
        step.relu_follows ? ref.data<float>() + in.slots[i] * o_count * length + out.starts[i]
                          : nullptr;
    kernels::cpu::ChangeConvWindow window;
    window.dilation = step.conv.dilation;
    window.d = v.change.data<float>() + m * c_count * v.width;
    window.w_in = v.width;
    window.shift0 = v.starts[i] + step.conv.pad_left - out.starts[i];
    window.out = result.data<float>() + m * o_count * out.width;
    window.w_out = out.width;
    kernels::cpu::ChangeConvEpilogue epilogue;
    epilogue.relu_reference = relu_reference;
    epilogue.reference_stride = length;
    epilogue.add_input = step.adds_input;
    epilogue.input_shift = v.starts[i] - out.starts[i];
    kernels::cpu::conv1d_change(step.packed_taps, window, epilogue);
  }
  return result;
}

// A dense-stride, undilated convolution of the sequence's change over a few columns (a
// substitution's, an MNV's), a few +-1 entries: each adds its weight column's taps to a run of
// output columns, with no GEMM call (whose fixed cost was most of this step's: about 2% of a
// BPNet ISM). Wider changes (an indel's shifted tail) stay with the GEMMs. The taps are read
// reversed (`flipped`), so that each output row's run reads its taps forwards, and where the
// output window is one kernel wide and the run covers it (a substitution away from the ends),
// the output's rows and the flipped taps' line up: one run over all output channels at once.
constexpr int64_t kMaxSequenceChangeColumns = 16;

Tensor convolve_sequence_change(const Step& step, const Value& v, const Value& out) {
  const auto m_count = static_cast<int64_t>(v.starts.size());
  const int64_t o_count = step.weight.size(0), c_count = step.weight.size(1);
  const int64_t k_count = step.kernel, w_in = v.width, w_out = out.width;
  Tensor result = Tensor::zeros({m_count, o_count, w_out});
  const float* flipped = step.flipped.data<float>();  // (C, O, K): W[o, c, K - 1 - j]
  const float* d = v.change.data<float>();
  float* o = result.data<float>();
  for (int64_t m = 0; m < m_count; ++m) {
    const auto i = static_cast<size_t>(m);
    // Input column t reaches output column u through tap k = t + base - u.
    const int64_t base = v.starts[i] + step.conv.pad_left - out.starts[i];
    for (int64_t t = 0; t < w_in; ++t) {
      const int64_t u0 = std::max<int64_t>(0, t + base - (k_count - 1));
      const int64_t u1 = std::min(w_out, t + base + 1);
      if (u1 <= u0) continue;
      // Output column u reads flipped entry j = u + skew (tap last - u, last = t + base).
      const int64_t skew = k_count - 1 - (t + base);
      float* rows = o + m * o_count * w_out;
      for (int64_t c = 0; c < c_count; ++c) {
        const float value = d[(m * c_count + c) * w_in + t];
        if (value == 0.0F) continue;
        const float* taps = flipped + c * o_count * k_count;
        if (w_out == k_count && u0 == 0 && u1 == k_count) {  // skew is 0: rows line up
#pragma omp simd
          for (int64_t x = 0; x < o_count * k_count; ++x) rows[x] += value * taps[x];
          continue;
        }
        for (int64_t oc = 0; oc < o_count; ++oc) {
          float* row = rows + oc * w_out;
          const float* tap = taps + oc * k_count + skew;
#pragma omp simd
          for (int64_t u = u0; u < u1; ++u) row[u] += value * tap[u];
        }
      }
    }
  }
  return result;
}

Value conv_change(const StepInputs& in) {
  const Step& step = in.step;
  const Value& v = in.value(0);
  const int64_t stride = step.conv.stride, span = (step.kernel - 1) * step.conv.dilation;
  Value out;
  std::vector<int64_t> a, b;
  grown_windows(v, step.conv.pad_left, span, stride, a, b);
  place(a, b, step.need, out);
  if (step.inputs[0] == 0 && stride == 1 && step.conv.dilation == 1 &&
      v.width <= kMaxSequenceChangeColumns) {
    out.change = convolve_sequence_change(step, v, out);
    return out;
  }
  const int64_t c_count = step.taps.size(2);
  // Tap by tap where both channel counts keep the GEMMs busy: in registers from a vector's
  // width of columns on (kernels/cpu/conv1d_change.h), else the alternates' columns side by side
  // in one GEMM. A one-hot input's four channels convolve faster padded (its few extra columns
  // cost little; the kernel measured the same), and so does a head of few output channels
  // (BPNet's profile: conv1d's direct kernel instead of 75 thin GEMMs).
  if (stride == 1 && c_count >= kMinChannelsForTaps && step.taps.size(1) >= kMinRowsForTaps) {
    if (!step.packed_taps.packed.empty() && v.width >= kMinColumnsInRegisters) {
      out.change = convolve_in_registers(in, v, out);
      out.relu_applied = step.relu_follows;
      out.input_added = step.adds_input;
    } else {
      out.change = convolve_taps(step, v, out);
    }
    return out;
  }
  // Alternate m's output window reads input columns [r[m], r[m] + read).
  const int64_t read = (out.width - 1) * stride + span + 1;
  std::vector<int64_t> r(out.starts.size());
  for (size_t m = 0; m < r.size(); ++m) r[m] = out.starts[m] * stride - step.conv.pad_left;
  out.change = convolve_padded(step, v, r, read);
  return out;
}

Value pool_change(const StepInputs& in) {
  const Step& step = in.step;
  const Value& v = in.value(0);
  const int64_t k = step.pool.kernel, stride = step.pool.stride;
  Value out;
  std::vector<int64_t> a, b;
  grown_windows(v, 0, k - 1, stride, a, b);
  place(a, b, step.need, out);
  std::vector<int64_t> r(out.starts.size());
  for (size_t m = 0; m < r.size(); ++m) r[m] = out.starts[m] * stride;
  const Tensor x = values_over(in.reference(0), in.slots, r, (out.width - 1) * stride + k, &v);
  Pool1DParams params = step.pool;
  params.ceil_mode = false;
  out.change = step.max_pool ? ops::max_pool1d(x, params).first : ops::avg_pool1d(x, params);
  subtract_reference(out.change, in.own_reference(), in.slots, out.starts);
  return out;
}

Value crop_change(const StepInputs& in) {
  const Value& v = in.value(0);
  std::vector<int64_t> shifted(v.starts.size()), b(v.starts.size());
  for (size_t m = 0; m < shifted.size(); ++m) {
    shifted[m] = v.starts[m] - in.step.crop_left;
    b[m] = shifted[m] + v.width;
  }
  Value out;
  place(shifted, b, in.step.need, out);
  out.change = rewindow(v.change, shifted, out.starts, out.width);
  return out;
}

Value elementwise_change(const StepInputs& in) {
  const Value& v = in.value(0);
  std::vector<int64_t> b(v.starts.size());
  for (size_t m = 0; m < b.size(); ++m) b[m] = v.starts[m] + v.width;
  Value out;
  place(v.starts, b, in.step.need, out);
  if (in.step.affine) {
    out.change = rewindow(v, out.starts, out.width);
    if (!in.writable(0, out.change)) out.change = out.change.clone();
    const int64_t m_count = out.change.size(0), channels = out.change.size(1);
    const float* scale = in.ref.scales[in.index].data<float>();
    float* o = out.change.data<float>();
    for (int64_t row = 0; row < m_count * channels; ++row) {
      const float a = scale[row % channels];
#pragma omp simd
      for (int64_t j = 0; j < out.width; ++j) o[row * out.width + j] *= a;
    }
    return out;
  }
  if (!in.step.relu) {
    const Tensor x = values_over(in.reference(0), in.slots, out.starts, out.width, &v);
    out.change = in.step.layer->forward(Var(x)).value().contiguous();
    if (out.change.storage() == x.storage()) out.change = out.change.clone();
    subtract_reference(out.change, in.own_reference(), in.slots, out.starts);
    return out;
  }
  if (v.relu_applied) {  // by the convolution (a zero change stays zero through a ReLU)
    out.change = rewindow(v, out.starts, out.width);
    out.input_added = v.input_added;
    return out;
  }
  // max(ref_in + change, 0) - ref_out in one pass.
  const Tensor change = rewindow(v, out.starts, out.width);
  out.change = in.writable(0, change) ? change : Tensor::empty(change.shape());
  const Tensor& ref_in = in.reference(0);
  const int64_t m_count = change.size(0), channels = change.size(1), width = out.width;
  const int64_t length = ref_in.size(2);
  const float* d = change.data<float>();
  const float* r_in = ref_in.data<float>();
  float* o = out.change.data<float>();
#pragma omp parallel for schedule(static) if (m_count * channels * width >= 65536)
  for (int64_t m = 0; m < m_count; ++m) {
    const auto k = static_cast<size_t>(m);
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t at = (m * channels + c) * width;
      const float* r = r_in + (in.slots[k] * channels + c) * length + out.starts[k];
#pragma omp simd
      for (int64_t j = 0; j < width; ++j) {
        const float x = r[j];
        o[at + j] = std::max(x + d[at + j], 0.0F) - std::max(x, 0.0F);
      }
    }
  }
  return out;
}

Value merge_change(const StepInputs& in) {
  const size_t m_count = in.slots.size();
  std::vector<int64_t> a(m_count, std::numeric_limits<int64_t>::max());
  std::vector<int64_t> b(m_count, std::numeric_limits<int64_t>::min());
  for (size_t i = 0; i < in.step.inputs.size(); ++i) {
    const Value& v = in.value(i);
    for (size_t m = 0; m < m_count; ++m) {
      a[m] = std::min(a[m], v.starts[m]);
      b[m] = std::max(b[m], v.starts[m] + v.width);
    }
  }
  Value out;
  place(a, b, in.step.need, out);
  if (in.step.concat) {
    std::vector<Tensor> parts;
    for (size_t i = 0; i < in.step.inputs.size(); ++i) {
      parts.push_back(rewindow(in.value(i), out.starts, out.width));
    }
    out.change = ops::concat(parts, 1);
    return out;
  }
  for (size_t i = 0; i < in.step.inputs.size(); ++i) {
    // The residual block's sum, written by its convolution: outside that window the branch
    // and the block's input are unchanged (the input's window lies inside the branch's).
    if (in.value(i).input_added) {
      out.change = rewindow(in.value(i), out.starts, out.width);
      return out;
    }
  }
  // The sum of the changes, each added where its window is, onto an input whose window is the
  // output's and whose storage may be written (the residual branch, usually), else a copy.
  size_t base = 0;
  Tensor sum;
  for (size_t i = 0; i < in.step.inputs.size() && !sum.defined(); ++i) {
    const Value& v = in.value(i);
    if (v.starts != out.starts || v.width != out.width) continue;
    Tensor candidate = v.change;  // a second holder, as writable() expects
    if (in.writable(i, candidate)) {
      base = i;
      sum = candidate;
    }
  }
  if (!sum.defined()) sum = rewindow(in.value(0), out.starts, out.width);
  if (!in.writable(base, sum)) sum = sum.clone();
  out.change = sum;
  const int64_t channels = out.change.size(1);
  float* o = out.change.data<float>();
  for (size_t i = 0; i < in.step.inputs.size(); ++i) {
    if (i == base) continue;
    const Value& v = in.value(i);
    const float* d = v.change.data<float>();
#pragma omp parallel for schedule(static) if (out.change.numel() >= 65536)
    for (int64_t m = 0; m < static_cast<int64_t>(m_count); ++m) {
      const auto k = static_cast<size_t>(m);
      const int64_t lo = std::clamp<int64_t>(v.starts[k] - out.starts[k], 0, out.width);
      const int64_t hi = std::clamp<int64_t>(v.starts[k] + v.width - out.starts[k], lo, out.width);
      for (int64_t c = 0; c < channels; ++c) {
        float* row = o + (m * channels + c) * out.width;
        const float* from = d + (m * channels + c) * v.width + (out.starts[k] - v.starts[k]);
#pragma omp simd
        for (int64_t j = lo; j < hi; ++j) row[j] += from[j];
      }
    }
  }
  return out;
}

Value global_avg_value(const StepInputs& in) {
  const Value& v = in.value(0);
  const int64_t channels = v.change.size(1), l = in.step.input_shape[1];
  Value out;
  out.full = reference_rows(in.own_reference(), in.slots);  // (M, C)
  float* o = out.full.data<float>();
  const float* d = v.change.data<float>();
  for (int64_t m = 0; m < static_cast<int64_t>(in.slots.size()); ++m) {
    for (int64_t c = 0; c < channels; ++c) {
      const float* row = d + (m * channels + c) * v.width;
      // In float, 16 lanes wide: a change is small, and its sum's rounding (about 1e-7 of it
      // per lane's partial sum) stays far under the effect's own (the double sum took 2% of a
      // BPNet ISM).
      float change = 0.0F;
#pragma omp simd reduction(+ : change)
      for (int64_t j = 0; j < v.width; ++j) change += row[j];
      o[m * channels + c] += change / static_cast<float>(l);
    }
  }
  return out;
}

Value global_max_value(const StepInputs& in) {
  const Value& v = in.value(0);
  const Tensor window = values_over(in.reference(0), in.slots, v.starts, v.width, &v);
  const int64_t channels = window.size(1), l = in.reference(0).size(2);
  const auto m_count = static_cast<int64_t>(in.slots.size());
  Value out;
  out.full = Tensor::empty({m_count, channels});
  float* o = out.full.data<float>();
  const float* w = window.data<float>();
  const float* prefix = in.ref.prefix_max[in.index].data<float>();
  const float* suffix = in.ref.suffix_max[in.index].data<float>();
  for (int64_t m = 0; m < m_count; ++m) {
    const auto k = static_cast<size_t>(m);
    const int64_t lo = v.starts[k], hi = v.starts[k] + v.width;  // inside [0, L)
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t row = (in.slots[k] * channels + c) * (l + 1);
      float best = std::max(prefix[row + lo], suffix[row + hi]);
      const float* values = w + (m * channels + c) * v.width;
      for (int64_t t = 0; t < v.width; ++t) best = std::max(best, values[t]);
      o[m * channels + c] = best;
    }
  }
  return out;
}

// ref + W[:, columns of the changed positions] * change, over the hull of the batch's windows.
// The weight's columns of a run of positions are one contiguous block of `by_position`, so the
// change is transposed to position-major instead (it is far smaller than those columns, which
// were copied out of the (O, C, L) weight on every call: 9% of a Basset ISM).
Value sparse_dense_value(const StepInputs& in) {
  const Value& v = in.value(0);
  const int64_t channels = in.step.input_shape[0];
  const auto m_count = static_cast<int64_t>(in.slots.size());
  int64_t h0 = in.step.input_shape[1], h1 = 0;
  for (const int64_t a : v.starts) {
    h0 = std::min(h0, a);
    h1 = std::max(h1, a + v.width);
  }
  Value out;
  out.full = reference_rows(in.own_reference(), in.slots);  // (M, O)
  const std::vector<int64_t> hull_starts(static_cast<size_t>(m_count), h0);
  const int64_t o_count = in.step.weight.size(0), hull = h1 - h0;
  const Tensor rows = rewindow(v, hull_starts, hull)  // (M, C, hull) -> (M, hull * C)
                          .transpose(1, 2)
                          .contiguous()
                          .reshape({m_count, hull * channels});
  const Tensor columns = in.step.by_position.slice(0, h0, h1).reshape({hull * channels, o_count});
  out.full.add_(ops::matmul(rows, columns));
  return out;
}

Value layer_value(const StepInputs& in, const std::vector<Step>& steps) {
  const auto m_count = static_cast<int64_t>(in.slots.size());
  std::vector<Var> args;
  for (size_t i = 0; i < in.step.inputs.size(); ++i) {
    const Value& v = in.value(i);
    const Step& from = steps[in.step.inputs[i]];
    if (!v.local) {
      args.emplace_back(v.full);
    } else if (from.kind == Step::Kind::kFlatten) {
      const Tensor& flatten_input = in.ref.values[from.inputs[0]];
      args.emplace_back(materialize(v, flatten_input, in.slots).reshape({m_count, -1}));
    } else {
      args.emplace_back(materialize(v, in.reference(i), in.slots));
    }
  }
  Value out;
  out.full = in.step.layer->forward_inputs(args).value().contiguous();
  return out;
}

// Step s's value for the batch.
Value step_value(const std::vector<Step>& steps, size_t s, const WindowedReference& ref,
                 std::span<const int64_t> slots, const std::vector<Value>& values,
                 const std::vector<int64_t>& pending) {
  const Step& step = steps[s];
  const StepInputs in{s, step, ref, slots, values, pending};
  switch (step.kind) {
    case Step::Kind::kConv:
      return conv_change(in);
    case Step::Kind::kPool:
      return pool_change(in);
    case Step::Kind::kCrop:
      return crop_change(in);
    case Step::Kind::kElementwise:
      return elementwise_change(in);
    case Step::Kind::kMerge:
      return merge_change(in);
    case Step::Kind::kFlatten:
      return in.value(0);  // the change stays; Dense reads it sparsely
    case Step::Kind::kGlobalAvg:
      return global_avg_value(in);
    case Step::Kind::kGlobalMax:
      return global_max_value(in);
    case Step::Kind::kSparseDense:
      return sparse_dense_value(in);
    case Step::Kind::kReadout: {
      // The reference's output plus the readout of the block's input change.
      const size_t x = steps[step.readout_conv].inputs[0];
      Value out;
      out.full = reference_rows(ref.values[s], slots);  // (M, T)
      step.readout->add_changes(ref.values[step.readout_conv], ref.functionals[s], slots,
                                values[x].change, values[x].starts, out.full.data<float>());
      return out;
    }
    case Step::Kind::kInput:
    case Step::Kind::kLayer:
      break;
  }
  return layer_value(in, steps);
}

}  // namespace

WindowedReference WindowedForward::reference(const Tensor& codes) const {
  STRAND_CHECK(codes.dim() == 2 && codes.size(1) == length_ && codes.dtype() == DType::kUInt8,
               "windowed forward: planned for (G, {}) base codes, got {}", length_,
               codes.describe());
  NoGradGuard no_grad;
  WindowedReference ref;
  ref.rows = codes.size(0);
  ref.values.resize(steps_.size());
  ref.prefix_max.resize(steps_.size());
  ref.suffix_max.resize(steps_.size());
  ref.scales.resize(steps_.size());
  ref.functionals.resize(steps_.size());
  ref.values[0] = ops::one_hot(codes.contiguous());
  std::vector<int64_t> pending(steps_.size(), 0);  // readers still to run in this pass
  for (const Step& step : steps_) {
    for (const size_t from : step.inputs) ++pending[from];
  }
  for (size_t s = 1; s < steps_.size(); ++s) {
    const Step& step = steps_[s];
    std::vector<Var> args;
    for (const size_t from : step.inputs) args.emplace_back(ref.values[from]);
    ref.values[s] = step.layer->forward_inputs(args).value().contiguous();
    args.clear();
    for (const size_t from : step.inputs) {
      if (--pending[from] == 0 && !steps_[from].keep) ref.values[from] = Tensor();
    }
    if (step.affine) ref.scales[s] = channel_affine(*step.layer, step.shape[0]).scale;
    if (step.kind == Step::Kind::kReadout) {
      ref.functionals[s] = step.readout->functional(ref.values[step.readout_conv]);
    }
    if (step.kind != Step::Kind::kGlobalMax) continue;
    // Prefix and suffix maxima of the input: (G, C, L + 1).
    const Tensor& in = ref.values[step.inputs[0]];
    const int64_t rows = in.size(0) * in.size(1), l = in.size(2);
    Tensor prefix = Tensor::empty({in.size(0), in.size(1), l + 1});
    Tensor suffix = Tensor::empty({in.size(0), in.size(1), l + 1});
    for (int64_t row = 0; row < rows; ++row) {
      const float* v = in.data<float>() + row * l;
      float* p = prefix.data<float>() + row * (l + 1);
      float* q = suffix.data<float>() + row * (l + 1);
      p[0] = -std::numeric_limits<float>::infinity();
      for (int64_t t = 0; t < l; ++t) p[t + 1] = std::max(p[t], v[t]);
      q[l] = -std::numeric_limits<float>::infinity();
      for (int64_t t = l - 1; t >= 0; --t) q[t] = std::max(q[t + 1], v[t]);
    }
    ref.prefix_max[s] = prefix;
    ref.suffix_max[s] = suffix;
  }
  return ref;
}

const Tensor& WindowedForward::reference_output(const WindowedReference& reference,
                                                size_t k) const {
  return reference.values.at(output_steps_.at(k));
}

std::vector<Tensor> WindowedForward::alternates(const WindowedReference& ref,
                                                std::span<const int64_t> slots,
                                                std::span<const int64_t> starts,
                                                const Tensor& letters) const {
  const auto m_count = static_cast<int64_t>(slots.size());
  STRAND_CHECK(letters.dim() == 2 && letters.size(0) == m_count &&
                   letters.dtype() == DType::kUInt8 && starts.size() == slots.size(),
               "windowed forward: {} alternates need (M, W) letters, got {}", m_count,
               letters.describe());
  const int64_t width = letters.size(1);
  for (size_t m = 0; m < slots.size(); ++m) {
    STRAND_CHECK(
        slots[m] >= 0 && slots[m] < ref.rows && starts[m] >= 0 && starts[m] + width <= length_,
        "windowed forward: alternate {} (row {}, columns {}-{}) is outside the {} "
        "references of {} bases",
        m, slots[m], starts[m], starts[m] + width, ref.rows, length_);
  }
  NoGradGuard no_grad;
  std::vector<Value> values(steps_.size());
  std::vector<int64_t> pending(steps_.size());
  for (size_t s = 0; s < steps_.size(); ++s) pending[s] = steps_[s].readers;
  // The input's change: one-hot(letters) - one-hot(reference) over each window.
  Value& in = values[0];
  in.starts.assign(starts.begin(), starts.end());
  in.local = true;
  in.width = width;
  in.change = ops::one_hot(letters.contiguous());
  subtract_reference(in.change, ref.values[0], slots, in.starts);
  for (size_t s = 1; s < steps_.size(); ++s) {
    // A folded step's inputs stay (their pending counts keep the readout's input alive).
    if (steps_[s].folded) continue;
    values[s] = step_value(steps_, s, ref, slots, values, pending);
    for (const size_t from : steps_[s].inputs) {
      if (--pending[from] == 0) values[from] = Value();
    }
  }
  std::vector<Tensor> outputs;
  for (const size_t s : output_steps_) {
    const Value& v = values[s];
    if (!v.local) {
      outputs.push_back(v.full);
    } else if (steps_[s].kind == Step::Kind::kFlatten) {
      outputs.push_back(
          materialize(v, ref.values[steps_[s].inputs[0]], slots).reshape({m_count, -1}));
    } else {
      outputs.push_back(materialize(v, ref.values[s], slots));
    }
  }
  return outputs;
}

}  // namespace strand::explain
