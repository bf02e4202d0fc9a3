// The windowed strategy (alternates/windowed_changes.h): the reference pass, which keeps what
// alternates read, and the changes of a batch of alternates, step by step (the plan:
// alternates/change_plan.cpp; the steps: alternates/conv_change.cpp, alternates/step_changes.cpp;
// the windows: alternates/change_windows.h).
#include "alternates/windowed_changes.h"

#include <algorithm>
#include <limits>

#include "alternates/change_step.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "layers/channel_affine.h"
#include "ops/shape.h"

namespace strand::alternates {

using Step = ChangeStep;
using detail::materialize;
using detail::step_value;
using detail::subtract_reference;
using detail::Value;

WindowedChanges::WindowedChanges() = default;
WindowedChanges::~WindowedChanges() = default;

int64_t WindowedChanges::windowed_steps() const {
  int64_t count = 0;
  for (const Step& step : steps_) count += step.local && step.kind != Step::Kind::kInput ? 1 : 0;
  return count;
}

int64_t WindowedChanges::reference_bytes_per_row() const {
  int64_t bytes = 0;
  for (const Step& step : steps_) {
    if (step.keep) bytes += numel(step.shape) * 4;
    if (step.kind == Step::Kind::kGlobalMax) bytes += 2 * (numel(step.input_shape) + 1) * 4;
    if (step.kind == Step::Kind::kReadout) bytes += step.readout->bytes_per_row();
  }
  return std::max<int64_t>(bytes, 1);
}

int64_t WindowedChanges::alternates_per_call() const {
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

int64_t WindowedChanges::readouts() const {
  int64_t count = 0;
  for (const Step& step : steps_) count += step.kind == Step::Kind::kReadout ? 1 : 0;
  return count;
}

WindowedReference WindowedChanges::reference(const Tensor& codes) const {
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

const Tensor& WindowedChanges::reference_output(const WindowedReference& reference,
                                                size_t k) const {
  return reference.values.at(output_steps_.at(k));
}

std::vector<Tensor> WindowedChanges::alternates(const WindowedReference& ref,
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

}  // namespace strand::alternates
