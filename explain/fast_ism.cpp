// The fast ISM path (explain/fast_ism.h): the plan of steps, the reference pass, and the
// windowed computation of each batch of mutants.
//
// Layout: a windowed value is (C, M, W) float, contiguous: channel-major so that a Conv1D's
// change over every mutant's window is one (O, C) x (C, M * W) GEMM per tap, and a BatchNorm or
// pooling layer sees (1, C, M * W) or (1, C * M, W) as an ordinary batch. Mutant m's window
// starts at column starts[m] of the step's output (it may begin before 0 or end past L); the
// step's value for m equals the reference's outside [starts[m], starts[m] + W), and the window's
// columns outside [0, L) hold 0 (the padding a "same" Conv1D reads).
#include "explain/fast_ism.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "data/encoding.h"
#include "explain/parallel_units.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/graph.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "ops/conv1d.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"
#include "ops/pooling.h"
#include "ops/shape.h"
#include "train/evaluation.h"

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

// One step's value for a batch of M mutants.
struct Value {
  bool local = false;
  Tensor window;                // local: (C, M, W)
  std::vector<int64_t> starts;  // local: per mutant
  int64_t width = 0;            // local: W
  Tensor full;                  // global: (M, ...)
};

// (C, M, W): column j of mutant m is position starts[m] + j of `ref` ((G, C, L) contiguous, row
// slots[m]), 0 outside [0, L); where `in` (a window of the same step) covers the position, its
// value instead.
Tensor gather(const Tensor& ref, const std::vector<int64_t>& slots,
              const std::vector<int64_t>& starts, int64_t width, const Value* in) {
  const int64_t channels = ref.size(1), length = ref.size(2);
  const auto m_count = static_cast<int64_t>(slots.size());
  Tensor out = Tensor::empty({channels, m_count, width});
  const float* r = ref.data<float>();
  const float* w = in != nullptr ? in->window.data<float>() : nullptr;
  float* o = out.data<float>();
#pragma omp parallel for schedule(static) if (channels * m_count * width >= 65536)
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t m = 0; m < m_count; ++m) {
      float* row = o + (c * m_count + m) * width;
      const int64_t start = starts[static_cast<size_t>(m)];
      const float* ref_row = r + (slots[static_cast<size_t>(m)] * channels + c) * length;
      // The reference's columns inside [0, L), zeros outside.
      const int64_t lo = std::clamp<int64_t>(-start, 0, width);
      const int64_t hi = std::clamp<int64_t>(length - start, 0, width);
      std::fill(row, row + lo, 0.0F);
      if (hi > lo) std::memcpy(row + lo, ref_row + start + lo, static_cast<size_t>(hi - lo) * 4);
      std::fill(row + std::max(hi, lo), row + width, 0.0F);
      if (w != nullptr) {
        // The window's columns where it overlaps [start, start + width).
        const int64_t in_start = in->starts[static_cast<size_t>(m)];
        const int64_t from = std::max(start, in_start);
        const int64_t to = std::min(start + width, in_start + in->width);
        if (to > from) {
          std::memcpy(row + (from - start), w + (c * m_count + m) * in->width + (from - in_start),
                      static_cast<size_t>(to - from) * 4);
        }
      }
    }
  }
  return out;
}

// Zeroes the columns of `window` (C, M, W) outside [0, length).
void zero_outside(Tensor& window, const std::vector<int64_t>& starts, int64_t length) {
  const int64_t channels = window.size(0), m_count = window.size(1), width = window.size(2);
  float* o = window.data<float>();
  for (int64_t m = 0; m < m_count; ++m) {
    const int64_t start = starts[static_cast<size_t>(m)];
    const int64_t lo = std::clamp<int64_t>(-start, 0, width);
    const int64_t hi = std::max(lo, std::clamp<int64_t>(length - start, 0, width));
    if (lo == 0 && hi == width) continue;
    for (int64_t c = 0; c < channels; ++c) {
      float* row = o + (c * m_count + m) * width;
      std::fill(row, row + lo, 0.0F);
      std::fill(row + hi, row + width, 0.0F);
    }
  }
}

// (M, C, L): the reference of each mutant with its window written in.
Tensor materialize(const Value& value, const Tensor& ref, const std::vector<int64_t>& slots) {
  const int64_t channels = ref.size(1), length = ref.size(2);
  const auto m_count = static_cast<int64_t>(slots.size());
  Tensor out = Tensor::empty({m_count, channels, length});
  const float* r = ref.data<float>();
  const float* w = value.window.data<float>();
  float* o = out.data<float>();
#pragma omp parallel for schedule(static) if (channels * m_count * length >= 65536)
  for (int64_t m = 0; m < m_count; ++m) {
    const int64_t start = value.starts[static_cast<size_t>(m)];
    const int64_t from = std::max<int64_t>(start, 0);
    const int64_t to = std::min(start + value.width, length);
    for (int64_t c = 0; c < channels; ++c) {
      float* row = o + (m * channels + c) * length;
      std::memcpy(row, r + (slots[static_cast<size_t>(m)] * channels + c) * length,
                  static_cast<size_t>(length) * 4);
      if (to > from) {
        std::memcpy(row + from, w + (c * m_count + m) * value.width + (from - start),
                    static_cast<size_t>(to - from) * 4);
      }
    }
  }
  return out;
}

// Rows `slots` of a global reference (G, ...): (M, ...).
Tensor reference_rows(const Tensor& ref, const std::vector<int64_t>& slots) {
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

struct FastIsmPlan::Step {
  enum class Kind {
    kInput,        // the one-hot sequence
    kConv,         // Conv1D on a window
    kPool,         // MaxPool1D / AvgPool1D on a window
    kCrop,         // Crop1D: a shifted window
    kElementwise,  // activations, BatchNorm1D, Dropout on a window
    kMerge,        // Add / Concat of windows
    kFlatten,      // Flatten of a window: kept as the window, read by kSparseDense or whole
    kGlobalAvg,    // GlobalAvgPool1D of a window
    kGlobalMax,    // GlobalMaxPool1D of a window
    kSparseDense,  // Dense of a flattened window
    kLayer,        // any layer, run whole on every mutant
  };
  Kind kind = Kind::kLayer;
  Layer* layer = nullptr;
  std::string name;
  std::vector<size_t> inputs;
  Shape shape;  // per-sample output shape
  bool local = false;
  // kConv
  int64_t kernel = 0;
  Conv1DParams conv;
  bool delta = false;  // stride 1: the change propagated alone, one GEMM per tap
  Tensor taps;         // (K, O, C) contiguous, for delta
  Tensor weight, bias;
  // kPool
  Pool1DParams pool;
  bool max_pool = true;
  // kCrop
  int64_t crop_left = 0;
  // kMerge
  bool concat = false;
  // consumers in the plan (to free values early)
  int64_t readers = 0;
};

FastIsmPlan::FastIsmPlan() = default;
FastIsmPlan::~FastIsmPlan() = default;

int64_t FastIsmPlan::windowed_steps() const {
  int64_t count = 0;
  for (const Step& step : steps_) count += step.local && step.kind != Step::Kind::kInput ? 1 : 0;
  return count;
}

std::unique_ptr<FastIsmPlan> FastIsmPlan::make(Model& model, int64_t length, const Target& target,
                                               std::string* why) {
  const auto refuse = [why](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return std::unique_ptr<FastIsmPlan>();
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
  std::string output_node;
  if (auto* sequential = dynamic_cast<Sequential*>(&model)) {
    const size_t count =
        sequential->size() - (sequential->output_activation(0) != Activation::kIdentity ? 1 : 0);
    std::string previous = kSequenceInput;
    for (size_t i = 0; i < count; ++i) {
      nodes.push_back({sequential->layer(i).get(), std::to_string(i), {previous}});
      previous = std::to_string(i);
    }
    output_node = previous;
  } else if (auto* graph = dynamic_cast<Graph*>(&model)) {
    for (const Graph::Node& node : graph->nodes()) {
      nodes.push_back({node.layer.get(), node.name,
                       node.inputs.empty() ? std::vector<std::string>{} : node.inputs});
    }
    output_node = graph->output_value_node(target.output).name;
  } else {
    return refuse("it covers Sequential and Graph models, not " + model.type_name());
  }
  // The nodes the output needs.
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i].name] = i;
  std::vector<bool> needed(nodes.size(), false);
  std::vector<std::string> stack = {output_node};
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

  auto plan = std::unique_ptr<FastIsmPlan>(new FastIsmPlan());
  plan->target_ = target;
  plan->length_ = length;
  plan->activation_ = model.output_activation(target.output);
  Step input;
  input.kind = Step::Kind::kInput;
  input.name = kSequenceInput;
  input.shape = {4, length};
  input.local = true;
  plan->steps_.push_back(input);
  std::map<std::string, size_t> step_of = {{kSequenceInput, 0}};
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!needed[i]) continue;
    const Node& node = nodes[i];
    Step step;
    step.layer = node.layer;
    step.name = node.name;
    std::vector<Shape> input_shapes;
    bool all_local = true;
    for (const std::string& name : node.inputs) {
      const size_t from = step_of.at(name);
      step.inputs.push_back(from);
      input_shapes.push_back(plan->steps_[from].shape);
      all_local =
          all_local && plan->steps_[from].local && plan->steps_[from].kind != Step::Kind::kFlatten;
      ++plan->steps_[from].readers;
    }
    try {
      step.shape = node.layer->output_shape_of(input_shapes);
    } catch (const Error& error) {
      return refuse(fmt::format("node '{}': {}", node.name, error.what()));
    }
    const std::string type = node.layer->type_name();
    const Shape& in_shape = input_shapes.empty() ? Shape{} : input_shapes[0];
    const bool one_local_input = all_local && step.inputs.size() == 1 && in_shape.size() == 2;
    if (type == "Conv1D" && one_local_input) {
      auto* conv = dynamic_cast<Conv1D*>(node.layer);
      step.kind = Step::Kind::kConv;
      step.kernel = conv->kernel_size();
      step.conv = conv->params_for_length(in_shape[1]);
      step.weight = conv->weight().value().contiguous();
      if (conv->bias().defined()) step.bias = conv->bias().value().contiguous();
      // The change alone where the GEMM is worth it (a head of few channels recomputes its
      // window with the direct kernel instead).
      step.delta = step.conv.stride == 1 && conv->out_channels() >= 8;
      if (step.delta) {
        // (O, C, K) -> (K, O, C)
        const int64_t o = step.weight.size(0), c = step.weight.size(1), k = step.kernel;
        step.taps = Tensor::empty({k, o, c});
        const float* w = step.weight.data<float>();
        float* t = step.taps.data<float>();
        for (int64_t a = 0; a < o; ++a) {
          for (int64_t b = 0; b < c; ++b) {
            for (int64_t j = 0; j < k; ++j) t[(j * o + a) * c + b] = w[(a * c + b) * k + j];
          }
        }
      }
      step.local = true;
    } else if ((type == "MaxPool1D" || type == "AvgPool1D") && one_local_input) {
      step.max_pool = type == "MaxPool1D";
      step.pool = step.max_pool ? dynamic_cast<MaxPool1D*>(node.layer)->params()
                                : dynamic_cast<AvgPool1D*>(node.layer)->params();
      // A last, shorter window (ceil_mode) would read the zeros past the end.
      const bool partial =
          step.pool.ceil_mode && (in_shape[1] - step.pool.kernel) % step.pool.stride != 0;
      step.kind = partial ? Step::Kind::kLayer : Step::Kind::kPool;
      step.local = !partial;
    } else if (type == "Crop1D" && one_local_input) {
      step.kind = Step::Kind::kCrop;
      step.crop_left = (in_shape[1] - step.shape[1]) / 2;
      step.local = true;
    } else if (is_elementwise(type) && one_local_input) {
      step.kind = Step::Kind::kElementwise;
      step.local = true;
    } else if ((type == "Add" || type == "Concat") && all_local && in_shape.size() == 2) {
      step.kind = Step::Kind::kMerge;
      step.concat = type == "Concat";
      step.local = true;
    } else if (type == "Flatten" && one_local_input) {
      step.kind = Step::Kind::kFlatten;
      step.local = true;
    } else if (type == "GlobalAvgPool1D" && one_local_input) {
      step.kind = Step::Kind::kGlobalAvg;
    } else if (type == "GlobalMaxPool1D" && one_local_input) {
      step.kind = Step::Kind::kGlobalMax;
    } else if (type == "Dense" && step.inputs.size() == 1 &&
               plan->steps_[step.inputs[0]].kind == Step::Kind::kFlatten) {
      auto* dense = dynamic_cast<Dense*>(node.layer);
      step.kind = Step::Kind::kSparseDense;
      step.weight = dense->weight().value().contiguous();
      if (dense->bias().defined()) step.bias = dense->bias().value().contiguous();
    } else {
      step.kind = Step::Kind::kLayer;
    }
    step_of[node.name] = plan->steps_.size();
    plan->steps_.push_back(std::move(step));
  }
  plan->output_step_ = step_of.at(output_node);
  ++plan->steps_[plan->output_step_].readers;
  if (plan->windowed_steps() == 0)
    return refuse("no layer of the model reads the sequence locally");
  return plan;
}

IsmResult FastIsmPlan::run(Model& model, const Tensor& codes_in, const IsmOptions& options) const {
  const Tensor codes = codes_in.to(Device::cpu()).contiguous();
  STRAND_CHECK(codes.dim() == 2 && codes.size(1) == length_,
               "ism: the fast path was planned for {} bases, got {}", length_, codes.describe());
  const int64_t n = codes.size(0), length = length_;
  const int64_t start = options.start, end = options.end < 0 ? length : options.end;
  const int64_t positions = end - start;
  const bool was_training = model.is_training();
  model.eval();
  NoGradGuard no_grad;
  IsmResult result;
  result.fast = true;
  result.effects = Tensor::zeros({n, 4, positions});
  result.prediction = Tensor::empty({n});
  float* effects = result.effects.data<float>();
  const uint8_t* x = codes.data<uint8_t>();
  // Sequences in groups whose mutants fill about one batch.
  const int64_t group_size =
      std::clamp<int64_t>(options.batch_size / std::max<int64_t>(1, 3 * positions), 1, 64);
  try {
    for (int64_t first = 0; first < n; first += group_size) {
      const int64_t g_count = std::min(group_size, n - first);
      // The reference pass: every step's value for the group's sequences, (G, ...).
      std::vector<Tensor> ref(steps_.size());
      ref[0] = ops::one_hot(codes.slice(0, first, first + g_count).contiguous());
      for (size_t s = 1; s < steps_.size(); ++s) {
        const Step& step = steps_[s];
        std::vector<Var> args;
        for (const size_t from : step.inputs) args.emplace_back(ref[from]);
        ref[s] = step.layer->forward_inputs(args).value().contiguous();
      }
      const Tensor f_ref =
          select_target(output_task_values(Var(ref[output_step_]), activation_, target_), target_)
              .value()
              .contiguous();
      for (int64_t g = 0; g < g_count; ++g)
        result.prediction.data<float>()[first + g] = f_ref.data<float>()[g];
      // Prefix and suffix maxima of the inputs of GlobalMaxPool1D steps: (G, C, L + 1).
      std::vector<std::pair<Tensor, Tensor>> extremes(steps_.size());
      for (size_t s = 1; s < steps_.size(); ++s) {
        if (steps_[s].kind != Step::Kind::kGlobalMax) continue;
        const Tensor& in = ref[steps_[s].inputs[0]];
        const int64_t channels = in.size(1), l = in.size(2);
        Tensor prefix = Tensor::empty({g_count, channels, l + 1});
        Tensor suffix = Tensor::empty({g_count, channels, l + 1});
        for (int64_t row = 0; row < g_count * channels; ++row) {
          const float* v = in.data<float>() + row * l;
          float* p = prefix.data<float>() + row * (l + 1);
          float* q = suffix.data<float>() + row * (l + 1);
          p[0] = -std::numeric_limits<float>::infinity();
          for (int64_t t = 0; t < l; ++t) p[t + 1] = std::max(p[t], v[t]);
          q[l] = -std::numeric_limits<float>::infinity();
          for (int64_t t = l - 1; t >= 0; --t) q[t] = std::max(q[t + 1], v[t]);
        }
        extremes[s] = {prefix, suffix};
      }

      // The group's mutants: (slot, position, letter), in batches.
      struct Mutant {
        int64_t slot, position;
        uint8_t letter;
      };
      std::vector<Mutant> mutants;
      for (int64_t g = 0; g < g_count; ++g) {
        const uint8_t* sequence = x + (first + g) * length;
        for (int64_t p = start; p < end; ++p) {
          if (sequence[p] >= data::kNumBases) continue;
          for (uint8_t c = 0; c < data::kNumBases; ++c) {
            if (c != sequence[p]) mutants.push_back({g, p, c});
          }
        }
      }
      // Each batch of mutants is a unit of work of its own (explain/parallel_units.h).
      const auto batch = static_cast<size_t>(options.batch_size);
      const auto batches = static_cast<int64_t>((mutants.size() + batch - 1) / batch);
      for_each_unit(batches, [&](int64_t unit) {
        NoGradGuard unit_no_grad;  // grad mode is per thread
        const size_t b0 = static_cast<size_t>(unit) * batch;
        const size_t b1 = std::min(mutants.size(), b0 + batch);
        const auto m_count = static_cast<int64_t>(b1 - b0);
        std::vector<int64_t> slots(static_cast<size_t>(m_count));
        std::vector<Value> values(steps_.size());
        std::vector<int64_t> pending(steps_.size());
        for (size_t s = 0; s < steps_.size(); ++s) pending[s] = steps_[s].readers;
        // The input: each mutant's one column, the one-hot of its letter.
        Value& in = values[0];
        in.local = true;
        in.width = 1;
        in.window = Tensor::zeros({4, m_count, 1});
        for (int64_t m = 0; m < m_count; ++m) {
          const Mutant& mutant = mutants[b0 + static_cast<size_t>(m)];
          slots[static_cast<size_t>(m)] = mutant.slot;
          in.starts.push_back(mutant.position);
          in.window.data<float>()[mutant.letter * m_count + m] = 1.0F;
        }
        for (size_t s = 1; s < steps_.size(); ++s) {
          const Step& step = steps_[s];
          Value& out = values[s];
          const auto input = [&](size_t i) -> const Value& { return values[step.inputs[i]]; };
          const auto input_ref = [&](size_t i) -> const Tensor& { return ref[step.inputs[i]]; };
          switch (step.kind) {
            case Step::Kind::kInput:
              break;
            case Step::Kind::kConv: {
              const Value& v = input(0);
              const int64_t span = (step.kernel - 1) * step.conv.dilation;
              const int64_t l_out = step.shape[1];
              out.local = true;
              if (step.delta) {
                out.width = v.width + span;
                for (const int64_t a : v.starts)
                  out.starts.push_back(a + step.conv.pad_left - span);
                // The change of the input over its window, (C, M * W_in).
                Tensor change = gather(input_ref(0), slots, v.starts, v.width, nullptr);
                {
                  float* d = change.data<float>();
                  const float* w = v.window.data<float>();
                  const int64_t total = change.numel();
#pragma omp parallel for simd schedule(static) if (total >= 65536)
                  for (int64_t e = 0; e < total; ++e) d[e] = w[e] - d[e];
                }
                const int64_t channels = change.size(0);
                const Tensor flat = change.reshape({channels, m_count * v.width});
                out.window = gather(ref[s], slots, out.starts, out.width, nullptr);
                float* o = out.window.data<float>();
                const int64_t o_count = out.window.size(0);
                for (int64_t k = 0; k < step.kernel; ++k) {
                  const Tensor product =
                      ops::matmul(step.taps.slice(0, k, k + 1).reshape({o_count, channels}), flat);
                  const float* p = product.data<float>();
                  const int64_t shift = (step.kernel - 1 - k) * step.conv.dilation;
#pragma omp parallel for schedule(static) if (o_count * m_count * v.width >= 65536)
                  for (int64_t oc = 0; oc < o_count; ++oc) {
                    for (int64_t m = 0; m < m_count; ++m) {
                      float* row = o + (oc * m_count + m) * out.width + shift;
                      const float* from = p + (oc * m_count + m) * v.width;
#pragma omp simd
                      for (int64_t j = 0; j < v.width; ++j) row[j] += from[j];
                    }
                  }
                }
              } else {
                const int64_t stride = step.conv.stride;
                out.width = (v.width - 1 + span) / stride + 1;
                std::vector<int64_t> reads;
                for (const int64_t a : v.starts) {
                  const int64_t t0 = ceil_div(a + step.conv.pad_left - span, stride);
                  out.starts.push_back(t0);
                  reads.push_back(t0 * stride - step.conv.pad_left);
                }
                const int64_t read_width = (out.width - 1) * stride + span + 1;
                const Tensor window = gather(input_ref(0), slots, reads, read_width, &v);
                Conv1DParams params = step.conv;
                params.pad_left = params.pad_right = 0;
                const Tensor y = ops::conv1d(window.transpose(0, 1).contiguous(), step.weight,
                                             step.bias, params);
                out.window = y.transpose(0, 1).contiguous();
              }
              zero_outside(out.window, out.starts, l_out);
              break;
            }
            case Step::Kind::kPool: {
              const Value& v = input(0);
              const int64_t k = step.pool.kernel, stride = step.pool.stride;
              out.local = true;
              out.width = (v.width + k - 2) / stride + 1;
              std::vector<int64_t> reads;
              for (const int64_t a : v.starts) {
                const int64_t t0 = ceil_div(a - k + 1, stride);
                out.starts.push_back(t0);
                reads.push_back(t0 * stride);
              }
              const int64_t read_width = (out.width - 1) * stride + k;
              const Tensor window = gather(input_ref(0), slots, reads, read_width, &v);
              const int64_t channels = window.size(0);
              const Tensor rows = window.reshape({1, channels * m_count, read_width});
              Pool1DParams params = step.pool;
              params.ceil_mode = false;
              const Tensor y = step.max_pool ? ops::max_pool1d(rows, params).first
                                             : ops::avg_pool1d(rows, params);
              out.window = y.reshape({channels, m_count, out.width}).contiguous();
              zero_outside(out.window, out.starts, step.shape[1]);
              break;
            }
            case Step::Kind::kCrop: {
              const Value& v = input(0);
              out.local = true;
              out.width = v.width;
              for (const int64_t a : v.starts) out.starts.push_back(a - step.crop_left);
              out.window = v.window.clone();
              zero_outside(out.window, out.starts, step.shape[1]);
              break;
            }
            case Step::Kind::kElementwise: {
              const Value& v = input(0);
              out.local = true;
              out.width = v.width;
              out.starts = v.starts;
              const int64_t channels = v.window.size(0);
              const Var flat_window(v.window.reshape({1, channels, m_count * v.width}));
              out.window = step.layer->forward(flat_window)
                               .value()
                               .reshape({channels, m_count, v.width})
                               .contiguous();
              if (out.window.storage() == v.window.storage()) out.window = out.window.clone();
              zero_outside(out.window, out.starts, step.shape[1]);
              break;
            }
            case Step::Kind::kMerge: {
              // The hull of the inputs' windows, per mutant.
              out.local = true;
              std::vector<int64_t> ends(static_cast<size_t>(m_count),
                                        std::numeric_limits<int64_t>::min());
              out.starts.assign(static_cast<size_t>(m_count), std::numeric_limits<int64_t>::max());
              for (size_t i = 0; i < step.inputs.size(); ++i) {
                const Value& v = input(i);
                for (int64_t m = 0; m < m_count; ++m) {
                  const auto k = static_cast<size_t>(m);
                  out.starts[k] = std::min(out.starts[k], v.starts[k]);
                  ends[k] = std::max(ends[k], v.starts[k] + v.width);
                }
              }
              out.width = 0;
              for (int64_t m = 0; m < m_count; ++m) {
                const auto k = static_cast<size_t>(m);
                out.width = std::max(out.width, ends[k] - out.starts[k]);
              }
              std::vector<Tensor> parts;
              for (size_t i = 0; i < step.inputs.size(); ++i) {
                parts.push_back(gather(input_ref(i), slots, out.starts, out.width, &input(i)));
              }
              if (step.concat) {
                out.window = ops::concat(parts, 0);
              } else {
                out.window = parts[0];
                for (size_t i = 1; i < parts.size(); ++i) out.window.add_(parts[i]);
              }
              break;
            }
            case Step::Kind::kFlatten: {
              out = input(0);  // the window stays; Dense reads it sparsely
              break;
            }
            case Step::Kind::kGlobalAvg: {
              const Value& v = input(0);
              const Tensor& r_in = input_ref(0);
              const int64_t channels = r_in.size(1), l = r_in.size(2);
              const Tensor base = gather(r_in, slots, v.starts, v.width, nullptr);
              out.full = reference_rows(ref[s], slots);  // (M, C)
              float* o = out.full.data<float>();
              const float* w = v.window.data<float>();
              const float* b = base.data<float>();
              for (int64_t c = 0; c < channels; ++c) {
                for (int64_t m = 0; m < m_count; ++m) {
                  const int64_t at = (c * m_count + m) * v.width;
                  double change = 0.0;
                  for (int64_t j = 0; j < v.width; ++j) change += w[at + j] - b[at + j];
                  o[m * channels + c] += static_cast<float>(change / static_cast<double>(l));
                }
              }
              break;
            }
            case Step::Kind::kGlobalMax: {
              const Value& v = input(0);
              const Tensor& r_in = input_ref(0);
              const int64_t channels = r_in.size(1), l = r_in.size(2);
              const auto& [prefix, suffix] = extremes[s];
              out.full = Tensor::empty({m_count, channels});
              float* o = out.full.data<float>();
              const float* w = v.window.data<float>();
              for (int64_t m = 0; m < m_count; ++m) {
                const int64_t a = v.starts[static_cast<size_t>(m)];
                const int64_t lo = std::clamp<int64_t>(a, 0, l);
                const int64_t hi = std::clamp<int64_t>(a + v.width, 0, l);
                for (int64_t c = 0; c < channels; ++c) {
                  const int64_t row = (slots[static_cast<size_t>(m)] * channels + c) * (l + 1);
                  float best =
                      std::max(prefix.data<float>()[row + lo], suffix.data<float>()[row + hi]);
                  const float* window = w + (c * m_count + m) * v.width;
                  for (int64_t t = lo; t < hi; ++t) best = std::max(best, window[t - a]);
                  o[m * channels + c] = best;
                }
              }
              break;
            }
            case Step::Kind::kSparseDense: {
              // out = ref + W[:, columns of the changed positions] (x - x_ref) over the hull of
              // the batch's windows.
              const Value& v = input(0);
              const Tensor& r_in = ref[steps_[step.inputs[0]].inputs[0]];  // the flatten's input
              const int64_t channels = r_in.size(1), l = r_in.size(2);
              int64_t h0 = l, h1 = 0;
              for (const int64_t a : v.starts) {
                h0 = std::min(h0, std::max<int64_t>(a, 0));
                h1 = std::max(h1, std::min(a + v.width, l));
              }
              out.full = reference_rows(ref[s], slots);  // (M, O)
              if (h1 > h0) {
                const int64_t hull = h1 - h0;
                const std::vector<int64_t> hull_starts(static_cast<size_t>(m_count), h0);
                Tensor change = gather(r_in, slots, hull_starts, hull, &v);
                const Tensor base = gather(r_in, slots, hull_starts, hull, nullptr);
                change.add_(ops::affine(base, -1.0, 0.0));
                // (C, M, H) -> (M, C * H), and the weights' columns (O, C * H).
                const Tensor rows =
                    change.transpose(0, 1).contiguous().reshape({m_count, channels * hull});
                const int64_t o_count = step.weight.size(0);
                const Tensor columns = step.weight.reshape({o_count, channels, l})
                                           .slice(2, h0, h1)
                                           .contiguous()
                                           .reshape({o_count, channels * hull});
                out.full.add_(ops::matmul(rows, columns.transpose(0, 1)));
              }
              break;
            }
            case Step::Kind::kLayer: {
              std::vector<Var> args;
              for (size_t i = 0; i < step.inputs.size(); ++i) {
                const Value& v = input(i);
                const Step& from = steps_[step.inputs[i]];
                if (!v.local) {
                  args.emplace_back(v.full);
                } else if (from.kind == Step::Kind::kFlatten) {
                  const Tensor& r_in = ref[from.inputs[0]];
                  args.emplace_back(materialize(v, r_in, slots).reshape({m_count, -1}));
                } else {
                  args.emplace_back(materialize(v, input_ref(i), slots));
                }
              }
              out.full = step.layer->forward_inputs(args).value().contiguous();
              break;
            }
          }
          // Values nobody reads any more are released.
          for (const size_t from : step.inputs) {
            if (--pending[from] == 0) values[from] = Value();
          }
        }
        const Value& output = values[output_step_];
        const Tensor full =
            output.local ? (steps_[output_step_].kind == Step::Kind::kFlatten
                                ? materialize(output, ref[steps_[output_step_].inputs[0]], slots)
                                      .reshape({m_count, -1})
                                : materialize(output, ref[output_step_], slots))
                         : output.full;
        const Tensor f = select_target(output_task_values(Var(full), activation_, target_), target_)
                             .value()
                             .contiguous();
        for (int64_t m = 0; m < m_count; ++m) {
          const Mutant& mutant = mutants[b0 + static_cast<size_t>(m)];
          effects[((first + mutant.slot) * 4 + mutant.letter) * positions + mutant.position -
                  start] = f.data<float>()[m] - f_ref.data<float>()[mutant.slot];
        }
      });
    }
  } catch (...) {
    model.train(was_training);
    throw;
  }
  model.train(was_training);
  return result;
}

}  // namespace strand::explain
