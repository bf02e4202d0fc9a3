// The dense Conv1D engine of the CUDA backend, its choosing half: which implementation runs a
// pass of a shape (strand's kernel or cuDNN), chosen once per shape and batch size, chosen ahead
// for the batch sizes a run announced, exported and adopted (conv_engine.h). cuDNN's plans are
// conv_engine.cpp.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernels/cuda/check.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/conv_engine.h"
#include "tensor/cuda/device.h"
#include "tensor/determinism.h"
#include "tensor/precision.h"
#include "tensor/tensor.h"

namespace strand::cuda {
namespace {

using kernels::Conv1DGeometry;

const char* pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::kForward:
      return "forward";
    case ConvPass::kBackwardInput:
      return "backward_input";
    case ConvPass::kBackwardWeight:
      return "backward_weight";
    case ConvPass::kOneHotForward:
      return "onehot_forward";
    case ConvPass::kOneHotBackwardWeight:
      return "onehot_backward_weight";
  }
  return "?";
}

bool forward_pass(ConvPass pass) {
  return pass == ConvPass::kForward || pass == ConvPass::kOneHotForward;
}

ConvAlgorithm initial_policy() {
  const char* env = std::getenv("STRAND_CUDA_CONV");
  if (env == nullptr) return ConvAlgorithm::kAuto;
  const std::string value = env;
  if (value == "own") return ConvAlgorithm::kOwn;
  if (value == "cudnn") return ConvAlgorithm::kCudnn;
  STRAND_CHECK(value == "auto" || value.empty(),
               "STRAND_CUDA_CONV must be auto, own or cudnn, got '{}'", value);
  return ConvAlgorithm::kAuto;
}

struct SelectionState {
  std::mutex mutex;
  ConvAlgorithm policy = initial_policy();
  std::map<std::string, ConvChoice> choices;  // by shape_key()
  // By the shape key with batch 0 (without_batch()): the largest measured own_ms / cudnn_ms.
  std::map<std::string, double> own_slowdown;
  std::set<int64_t> training_sizes;   // planned batch sizes that run every pass
  std::set<int64_t> inference_sizes;  // planned batch sizes that run forward passes only
};
SelectionState& selection() {
  static SelectionState state;
  return state;
}

// A choice depends on the math mode (TF32 changes cuDNN's speed), on determinism (which takes
// cuDNN untimed) and on cuDNN's algorithm source (heuristics or its timed search).
std::string shape_key(ConvPass pass, const Conv1DGeometry& g, DType dtype) {
  const bool tf32 = float32_precision() == Float32Precision::kTf32;
  return fmt::format("{} {}{}{}{} B{} C{} L{} O{} K{} s{} d{} p{} Lout{}", pass_name(pass),
                     dtype_name(dtype), tf32 ? " tf32" : "", deterministic() ? " det" : "",
                     cudnn_find() ? " find" : "", g.batch, g.in_channels, g.length, g.out_channels,
                     g.kernel_size, g.stride, g.dilation, g.pad_left, g.out_length);
}

// `key` with its batch size (" B<digits> ") replaced by 0: the same pass and geometry at any
// batch size. A key without one comes back as it is.
std::string without_batch(const std::string& key) {
  const size_t at = key.find(" B");
  if (at == std::string::npos) return key;
  size_t end = at + 2;
  while (end < key.size() && key[end] >= '0' && key[end] <= '9') ++end;
  if (end == at + 2) return key;
  return key.substr(0, at) + " B0" + key.substr(end);
}

// strand's kernel lost this far to cuDNN at another batch size: an epoch's last, smaller batch
// (or a validation pass's) then takes cuDNN untimed. (Basset's partial batches timed conv2's
// 20-ms backward-weight kernel again, for a choice that could not change.)
constexpr double kClearLoss = 4.0;

// Multiply-adds of one pass of `g` (each of the three passes does as many).
double pass_macs(const Conv1DGeometry& g) {
  return static_cast<double>(g.batch) * static_cast<double>(g.out_channels) *
         static_cast<double>(g.out_length) * static_cast<double>(g.in_channels) *
         static_cast<double>(g.kernel_size);
}

// A CUDA event that is destroyed with its scope.
struct ScopedEvent {
  ScopedEvent() { STRAND_CUDA_CHECK(cudaEventCreate(&event)); }
  ~ScopedEvent() { cudaEventDestroy(event); }
  ScopedEvent(const ScopedEvent&) = delete;
  ScopedEvent& operator=(const ScopedEvent&) = delete;
  cudaEvent_t event = nullptr;
};

// Zero-filled operands of `pass` at geometry `g` (ConvOperands' order), for choosing a batch
// size before it is met. Freed, stream-ordered, with the object.
struct ScratchOperands {
  Tensor a, b, out;
  ConvOperands operands() const { return {a.raw_data(), b.raw_data(), nullptr, out.raw_data()}; }
};
ScratchOperands scratch_operands(ConvPass pass, const Conv1DGeometry& g, DType dtype,
                                 Device device) {
  const Shape x = {g.batch, g.in_channels, g.length};
  const Shape w = {g.out_channels, g.in_channels, g.kernel_size};
  const Shape y = {g.batch, g.out_channels, g.out_length};
  const Shape codes = {g.batch, g.length};
  const auto zeros = [&](const Shape& shape, DType type) {
    return Tensor::zeros(shape, type, device);
  };
  const auto output = [&](const Shape& shape) { return Tensor::empty(shape, dtype, device); };
  switch (pass) {
    case ConvPass::kForward:
      return {zeros(x, dtype), zeros(w, dtype), output(y)};
    case ConvPass::kBackwardInput:
      return {zeros(y, dtype), zeros(w, dtype), output(x)};
    case ConvPass::kBackwardWeight:
      return {zeros(y, dtype), zeros(x, dtype), output(w)};
    case ConvPass::kOneHotForward:
      return {zeros(codes, DType::kUInt8), zeros(w, dtype), output(y)};
    case ConvPass::kOneHotBackwardWeight:
      return {zeros(y, dtype), zeros(codes, DType::kUInt8), output(w)};
  }
  throw Error("conv1d (CUDA): unknown pass");
}

// Chooses the implementation of `pass` at `g`, running it on `operands` (the caller's, which
// then hold the result, or scratch ones). cuDNN untimed in deterministic mode, past
// kOwnHopelessMacs, or where strand's kernel lost clearly at another batch size; else both timed.
ConvChoice choose(ConvPass pass, const Conv1DGeometry& g, DType dtype, Device device,
                  const ConvOperands& operands, const ConvRunner& own, const ConvRunner& library) {
  SelectionState& state = selection();
  ConvChoice choice;
  choice.op = pass_name(pass);
  choice.shape = shape_key(pass, g, dtype);
  bool cudnn_clearly = pass_macs(g) > kOwnHopelessMacs;
  {
    std::lock_guard lock(state.mutex);
    const auto it = state.own_slowdown.find(without_batch(choice.shape));
    cudnn_clearly = cudnn_clearly || (it != state.own_slowdown.end() && it->second >= kClearLoss);
  }
  if (deterministic() || cudnn_clearly) {
    // A timed choice can differ between runs. Deterministic mode takes cuDNN untimed, with
    // the algorithms cuDNN reports as deterministic (its plans are keyed by the mode), and
    // strand's kernels (deterministic too) only for a shape cuDNN has no such algorithm for.
    // So does a shape strand's kernel cannot win.
    choice.chosen = "cudnn";
    try {
      library(g, operands);
    } catch (const Error&) {
      choice.chosen = "own";
      own(g, operands);
    }
    return choice;
  }
  const cudaStream_t s = stream(device);
  const ScopedEvent start, stop;  // destroyed on every exit, a throwing run included
  const auto elapsed_ms = [&](const ConvRunner& run, int times) {
    STRAND_CUDA_CHECK(cudaEventRecord(start.event, s));
    for (int i = 0; i < times; ++i) run(g, operands);
    STRAND_CUDA_CHECK(cudaEventRecord(stop.event, s));
    STRAND_CUDA_CHECK(cudaEventSynchronize(stop.event));
    float ms = 0.0f;
    STRAND_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event, stop.event));
    return static_cast<double>(ms) / times;
  };
  try {
    library(g, operands);  // warm-up: cuDNN's heuristics, the plan's workspace
    choice.cudnn_ms = elapsed_ms(library, 3);
  } catch (const Error&) {
    choice.cudnn_ms = -1.0;  // cuDNN refused the shape: strand's kernel it is
  }
  // strand's kernel runs last, so `out` holds its result either way. Its first run is timed
  // too (it includes loading the kernel, well under a millisecond): where that run alone is far
  // slower than cuDNN, three more would only confirm it.
  const double first_ms = elapsed_ms(own, 1);
  const bool hopeless = choice.cudnn_ms >= 0.0 && first_ms > 2.0 * choice.cudnn_ms + 1.0;
  choice.own_ms = hopeless ? first_ms : elapsed_ms(own, 3);
  choice.chosen = choice.cudnn_ms >= 0.0 && choice.cudnn_ms < choice.own_ms ? "cudnn" : "own";
  return choice;
}

// Remembers `choice` (and, when both sides were timed, how far strand's kernel lost).
void record(const ConvChoice& choice) {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  state.choices[choice.shape] = choice;
  if (choice.cudnn_ms > 0.0 && choice.own_ms >= 0.0) {
    double& slowdown = state.own_slowdown[without_batch(choice.shape)];
    slowdown = std::max(slowdown, choice.own_ms / choice.cudnn_ms);
  }
}

// The planned batch sizes other than `batch` that run `pass`.
std::vector<int64_t> other_planned_sizes(ConvPass pass, int64_t batch) {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  std::set<int64_t> sizes = state.training_sizes;
  if (forward_pass(pass)) sizes.insert(state.inference_sizes.begin(), state.inference_sizes.end());
  sizes.erase(batch);
  return {sizes.begin(), sizes.end()};
}

std::optional<ConvChoice> known_choice(const std::string& key) {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  const auto it = state.choices.find(key);
  if (it == state.choices.end()) return std::nullopt;
  return it->second;
}

// Chooses `pass` of `g`'s geometry at every other planned batch size on scratch operands, and
// builds the cuDNN plans those choices use, so that the sizes' first real calls find both
// (no timing, no cuDNN search mid-epoch).
void plan_other_sizes(ConvPass pass, const Conv1DGeometry& g, DType dtype, Device device,
                      const ConvRunner& own, const ConvRunner& library) {
  for (const int64_t batch : other_planned_sizes(pass, g.batch)) {
    Conv1DGeometry other = g;
    other.batch = batch;
    const std::optional<ConvChoice> known = known_choice(shape_key(pass, other, dtype));
    if (known && (known->chosen == "own" || cudnn_planned(pass, other, device))) continue;
    const ScratchOperands scratch = scratch_operands(pass, other, dtype, device);
    if (known) {
      library(other, scratch.operands());  // an adopted choice: its plan, built now
    } else {
      record(choose(pass, other, dtype, device, scratch.operands(), own, library));
    }
  }
}

}  // namespace

// Runs `own` or `library` per the policy and the remembered (or now made) choice.
void run_dense_conv(ConvPass pass, const Conv1DGeometry& g, bool symmetric_padding, DType dtype,
                    Device device, const ConvOperands& operands, const ConvRunner& own,
                    const ConvRunner& library) {
  if (!cudnn_can_run(g, dtype, symmetric_padding)) return own(g, operands);
  SelectionState& state = selection();
  const std::string key = shape_key(pass, g, dtype);
  ConvAlgorithm policy;
  {
    std::lock_guard lock(state.mutex);
    policy = state.policy;
    if (policy == ConvAlgorithm::kAuto) {
      auto it = state.choices.find(key);
      if (it != state.choices.end()) {
        return it->second.chosen == "cudnn" ? library(g, operands) : own(g, operands);
      }
    }
  }
  if (policy == ConvAlgorithm::kOwn) return own(g, operands);
  if (policy == ConvAlgorithm::kCudnn) return library(g, operands);
  // Nothing is chosen inside a graph capture: timing waits on the host, a cuDNN plan may need
  // a workspace, and falling back to strand's kernels would bake the slow path into every
  // replay. The shape must have run once before the capture (fit's warm-up step does that).
  STRAND_CHECK(!capturing(device),
               "conv1d (CUDA): {} was not run before the CUDA graph capture; run the captured "
               "step once eagerly first (its warm-up measures and plans every convolution)",
               key);
  record(choose(pass, g, dtype, device, operands, own, library));
  plan_other_sizes(pass, g, dtype, device, own, library);
}

void plan_batch_sizes(const std::vector<int64_t>& sizes, bool backward) {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  for (const int64_t size : sizes) {
    STRAND_CHECK(size > 0, "plan_batch_sizes: batch sizes must be positive, got {}", size);
    (backward ? state.training_sizes : state.inference_sizes).insert(size);
  }
}

void clear_planned_batch_sizes() {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  state.training_sizes.clear();
  state.inference_sizes.clear();
}

ConvPlanTable export_conv_plans(Device device) {
  ConvPlanTable table;
  table.device_name = device_properties(device.index).name;
  table.cudnn_version = cudnn_version();
  {
    SelectionState& state = selection();
    std::lock_guard lock(state.mutex);
    for (const auto& [key, choice] : state.choices) {
      table.choices.push_back({key, choice.chosen, choice.own_ms, choice.cudnn_ms});
    }
  }
  table.algorithms = export_cudnn_algorithms();
  return table;
}

std::string adopt_conv_plans(const ConvPlanTable& table, Device device) {
  const std::string reason =
      conv_plans_foreign_reason(table, device_properties(device.index).name, cudnn_version());
  if (!reason.empty()) return reason;
  {
    SelectionState& state = selection();
    std::lock_guard lock(state.mutex);
    for (const ConvChoiceRecord& record : table.choices) {
      ConvChoice choice;
      choice.op = record.key.substr(0, record.key.find(' '));
      choice.shape = record.key;
      choice.chosen = record.chosen;
      choice.own_ms = record.own_ms;
      choice.cudnn_ms = record.cudnn_ms;
      state.choices.emplace(record.key, choice);  // a choice made in this process wins
      if (record.cudnn_ms > 0.0 && record.own_ms >= 0.0) {
        double& slowdown = state.own_slowdown[without_batch(record.key)];
        slowdown = std::max(slowdown, record.own_ms / record.cudnn_ms);
      }
    }
  }
  adopt_cudnn_algorithms(table.algorithms);
  return "";
}

void set_conv_algorithm(ConvAlgorithm algorithm) {
  {
    SelectionState& state = selection();
    std::lock_guard lock(state.mutex);
    state.policy = algorithm;
    state.choices.clear();
    state.own_slowdown.clear();
  }
  clear_adopted_cudnn_algorithms();
}

ConvAlgorithm conv_algorithm() {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  return state.policy;
}

std::vector<ConvChoice> conv_choices() {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  std::vector<ConvChoice> out;
  for (const auto& [key, choice] : state.choices) out.push_back(choice);
  return out;
}

}  // namespace strand::cuda
