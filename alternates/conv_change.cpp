// A Conv1D step's change for a batch of alternates (the windowed strategy,
// alternates/windowed_changes.h): the change convolved without bias over its windows, in the
// way that suits its shape: a few +-1 entries of the sequence's change added tap by tap, wide
// windows in registers (kernels/cpu/conv1d_change.h, with the ReLU and residual Add that follow),
// narrow ones stacked into one GEMM, few channels padded through conv1d.
#include <algorithm>

#include "alternates/change_step.h"
#include "kernels/cpu/conv1d_change.h"
#include "kernels/cpu/gemm.h"
#include "ops/conv1d.h"

namespace strand::alternates::detail {
namespace {

using Step = ChangeStep;

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

}  // namespace

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

}  // namespace strand::alternates::detail
