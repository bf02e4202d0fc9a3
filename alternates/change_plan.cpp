// The windowed strategy's plan (alternates/windowed_changes.h): the steps of the model's layers
// that its outputs need, what each is to a change, the columns each step's consumers read, and
// the fusions (a convolution's ReLU and residual Add in its kernel, a counts head's readout).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "alternates/change_step.h"
#include "alternates/windowed_changes.h"
#include "core/error.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/graph.h"
#include "layers/pooling.h"
#include "layers/sequential.h"

namespace strand::alternates {
namespace {

using Step = ChangeStep;
using detail::clip;
using detail::hull;
using detail::kMinChannelsForTaps;
using detail::kMinColumnsInRegisters;
using detail::kMinRowsForTaps;
using detail::Range;

bool is_elementwise(const std::string& type) {
  static const std::set<std::string> kTypes = {"ReLU",     "Sigmoid", "Tanh",        "Exp",
                                               "Softplus", "GELU",    "BatchNorm1D", "Dropout"};
  return kTypes.count(type) > 0;
}

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

// Classifies one layer of the plan given its inputs' steps.
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

// A layer of the model and the names of what it reads.
struct Node {
  Layer* layer;
  std::string name;
  std::vector<std::string> inputs;
};

// The layers and what each reads, in order, and the nodes of `outputs`; false with the reason in
// `why` for a model neither Sequential nor Graph.
bool model_nodes(Model& model, const std::vector<size_t>& outputs, std::vector<Node>& nodes,
                 std::vector<std::string>& output_nodes, std::string* why) {
  if (auto* sequential = dynamic_cast<Sequential*>(&model)) {
    const size_t count =
        sequential->size() - (sequential->output_activation(0) != Activation::kIdentity ? 1 : 0);
    std::string previous = kSequenceInput;
    for (size_t i = 0; i < count; ++i) {
      nodes.push_back({sequential->layer(i).get(), std::to_string(i), {previous}});
      previous = std::to_string(i);
    }
    for (const size_t output : outputs) {
      if (output != 0) {
        *why = fmt::format("a Sequential has one output, not {}", output);
        return false;
      }
      output_nodes.push_back(previous);
    }
    return true;
  }
  if (auto* graph = dynamic_cast<Graph*>(&model)) {
    for (const Graph::Node& node : graph->nodes()) {
      nodes.push_back({node.layer.get(), node.name, node.inputs});
    }
    for (const size_t output : outputs) {
      output_nodes.push_back(graph->output_value_node(output).name);
    }
    return true;
  }
  *why = "it covers Sequential and Graph models, not " + model.type_name();
  return false;
}

// Which nodes the outputs need; false with the reason in `why` for a model reading an input
// other than the sequence.
bool needed_nodes(const std::vector<Node>& nodes, const std::vector<std::string>& output_nodes,
                  std::vector<bool>& needed, std::string* why) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i].name] = i;
  needed.assign(nodes.size(), false);
  std::vector<std::string> stack = output_nodes;
  while (!stack.empty()) {
    const std::string name = stack.back();
    stack.pop_back();
    if (name == kSequenceInput) continue;
    const auto it = index.find(name);
    if (it == index.end()) {
      *why = "the model reads an input '" + name + "'";
      return false;
    }
    if (needed[it->second]) continue;
    needed[it->second] = true;
    for (const std::string& input : nodes[it->second].inputs) stack.push_back(input);
  }
  return true;
}

// Whether every parameter is float32 on the CPU (a float64 scalar counter aside); else the
// reason in `why`.
bool float32_on_cpu(Model& model, std::string* why) {
  for (const auto& [name, parameter] : model.named_parameters()) {
    const bool counter = parameter.dtype() == DType::kFloat64 && parameter.dim() == 0;
    if (parameter.device() != Device::cpu() || (parameter.dtype() != DType::kFloat32 && !counter)) {
      *why = "it runs float32 models on the CPU, and parameter '" + name + "' is " +
             parameter.value().describe();
      return false;
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<WindowedChanges> WindowedChanges::make(Model& model, int64_t length,
                                                       std::vector<size_t> outputs,
                                                       std::string* why) {
  std::string reason;
  auto plan = std::unique_ptr<WindowedChanges>(new WindowedChanges());
  plan->length_ = length;
  if (!float32_on_cpu(model, &reason) || !plan->plan_steps(model, outputs, &reason)) {
    if (why != nullptr) *why = reason;
    return nullptr;
  }
  if (plan->windowed_steps() == 0) {
    if (why != nullptr) *why = "no layer of the model reads the sequence locally";
    return nullptr;
  }
  plan->plan_windows();
  plan->plan_change_convolutions();
  plan->plan_readouts();
  return plan;
}

bool WindowedChanges::plan_steps(Model& model, const std::vector<size_t>& outputs,
                                 std::string* why) {
  std::vector<Node> nodes;
  std::vector<std::string> output_nodes;
  std::vector<bool> needed;
  if (!model_nodes(model, outputs, nodes, output_nodes, why) ||
      !needed_nodes(nodes, output_nodes, needed, why)) {
    return false;
  }
  // Step 0 is the sequence.
  Step input;
  input.kind = Step::Kind::kInput;
  input.name = kSequenceInput;
  input.shape = {4, length_};
  input.local = true;
  steps_.push_back(input);
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
      input_shapes.push_back(steps_[from].shape);
      ++steps_[from].readers;
    }
    try {
      step.shape = step.layer->output_shape_of(input_shapes);
    } catch (const Error& error) {
      *why = fmt::format("node '{}': {}", step.name, error.what());
      return false;
    }
    step.input_shape = input_shapes.empty() ? Shape{} : input_shapes[0];
    classify(step, steps_, step.input_shape);
    if (step.kind == Step::Kind::kSparseDense) {
      step.input_shape = steps_[step.inputs[0]].input_shape;  // the Flatten's input's
      step.by_position =
          step.weight.reshape({step.weight.size(0), step.input_shape[0], step.input_shape[1]})
              .transpose(0, 2)
              .contiguous();
    }
    step_of[step.name] = steps_.size();
    steps_.push_back(std::move(step));
  }
  for (const std::string& name : output_nodes) {
    output_steps_.push_back(step_of.at(name));
    ++steps_[output_steps_.back()].readers;
  }
  return true;
}

// An output Dense over GlobalAvgPool1D(Crop1D*(Add(x, ReLU(Conv1D(x))))), each step read only by
// the next, with the block fused for conv1d_change: the counts head of BPNet and ChromBPNet.
// Its change is a readout of x's change (alternates/relu_readout.h), so the last block's
// convolution, ReLU and Add, the crop and the average never run on alternates.
void WindowedChanges::plan_readouts() {
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
void WindowedChanges::plan_change_convolutions() {
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

void WindowedChanges::plan_windows() {
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

}  // namespace strand::alternates
