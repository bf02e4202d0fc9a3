// The changes of the windowed strategy's other steps for a batch of alternates
// (alternates/windowed_changes.h): pooling, crops and activations on windows, the merges of
// residual blocks and concatenations, global pooling and a Dense of a flattened window read from
// the reference around the change, a counts head's readout, and any other layer run whole.
#include <algorithm>
#include <limits>

#include "alternates/change_step.h"
#include "ops/matmul.h"
#include "ops/pooling.h"
#include "ops/shape.h"

namespace strand::alternates::detail {
namespace {

using Step = ChangeStep;

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

}  // namespace

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

}  // namespace strand::alternates::detail
