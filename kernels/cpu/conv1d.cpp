// Dense Conv1D CPU kernels: the readable oracles, and the fast versions as im2col + GEMM
// (kernels/cpu/gemm.h) for any stride, dilation and padding.
#include "kernels/cpu/conv1d.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "kernels/cpu/conv1d_columns.h"
#include "kernels/cpu/conv1d_direct.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {
namespace {

// Output positions t whose tap k lands inside [0, length): t in [first, last).
struct ValidRange {
  int64_t first;
  int64_t last;
};
ValidRange valid_outputs(const Conv1DGeometry& g, int64_t k) {
  const int64_t shift = k * g.dilation - g.pad_left;  // position = t * stride + shift
  // first t with t * stride + shift >= 0
  int64_t first = shift >= 0 ? 0 : (-shift + g.stride - 1) / g.stride;
  // last t (exclusive) with t * stride + shift < length
  int64_t last = g.length - shift <= 0 ? 0 : (g.length - shift - 1) / g.stride + 1;
  first = std::min(first, g.out_length);
  last = std::clamp(last, first, g.out_length);
  return {first, last};
}

// A strided conv reads input position t * stride + shift for output t: with the row split into
// its `stride` phases, phase r holding positions r, r + stride, r + 2 * stride, ..., that is
// entry t + shift div stride of phase shift mod stride. So a strided im2col row is a contiguous
// copy out of one phase, and a strided col2im row a contiguous add into one (polyphase form):
// one strided pass per input row instead of one per tap.
struct Phases {
  int64_t stride;
  int64_t extent;  // entries per phase: ceil(L / stride)
  int64_t phase(int64_t shift) const { return ((shift % stride) + stride) % stride; }
  int64_t offset(int64_t shift) const { return (shift - phase(shift)) / stride; }
};

// Runs body.template operator()<S>() with S the stride as a constant for the common strides (the
// (de)interleaving loops then vectorise as grouped accesses), or S = 0: known at run time.
template <typename Body>
void dispatch_stride(int64_t stride, Body&& body) {
  switch (stride) {
    case 2:
      return body.template operator()<2>();
    case 3:
      return body.template operator()<3>();
    case 4:
      return body.template operator()<4>();
    default:
      return body.template operator()<0>();
  }
}

// split[r * extent + j] = row[j * stride + r] over the row's L positions, in input order: whole
// groups of `stride`, then the last partial group.
template <int64_t kStride, typename T>
void to_phases(const Phases& phases, int64_t length, const T* row, T* split) {
  const int64_t stride = kStride > 0 ? kStride : phases.stride;
  const int64_t groups = length / stride;
  for (int64_t j = 0; j < groups; ++j) {
    for (int64_t r = 0; r < stride; ++r) split[r * phases.extent + j] = row[j * stride + r];
  }
  for (int64_t p = groups * stride; p < length; ++p) {
    split[(p - groups * stride) * phases.extent + groups] = row[p];
  }
}

// The inverse: row[j * stride + r] = split[r * extent + j].
template <int64_t kStride, typename T>
void from_phases(const Phases& phases, int64_t length, const T* split, T* row) {
  const int64_t stride = kStride > 0 ? kStride : phases.stride;
  const int64_t groups = length / stride;
  for (int64_t j = 0; j < groups; ++j) {
    for (int64_t r = 0; r < stride; ++r) row[j * stride + r] = split[r * phases.extent + j];
  }
  for (int64_t p = groups * stride; p < length; ++p) {
    row[p] = split[(p - groups * stride) * phases.extent + groups];
  }
}

// Per-thread scratch for one input row's phases, kept between calls.
template <typename T>
T* phase_scratch(int64_t elements) {
  thread_local std::vector<T> buffer;
  if (static_cast<int64_t>(buffer.size()) < elements) buffer.resize(static_cast<size_t>(elements));
  return buffer.data();
}

// Where tap k reads, the same for every channel: outputs [first, last) read entry base + t of
// the row (stride 1) or of its phases (base may be negative; base + first is not).
struct TapSpan {
  int64_t first, last, base;
};
const TapSpan* tap_spans(const Conv1DGeometry& g, const Phases& phases) {
  thread_local std::vector<TapSpan> spans;
  spans.resize(static_cast<size_t>(g.kernel_size));
  for (int64_t k = 0; k < g.kernel_size; ++k) {
    const ValidRange range = valid_outputs(g, k);
    const int64_t shift = k * g.dilation - g.pad_left;
    const int64_t base =
        g.stride > 1 ? phases.phase(shift) * phases.extent + phases.offset(shift) : shift;
    spans[static_cast<size_t>(k)] = {range.first, range.last, base};
  }
  return spans.data();
}

// col (C*K, L_out) with row stride ld (>= L_out; a group of samples' columns side by side):
// col[(c * K + k) * ld + t] = x[c, t * stride + k * dilation - pad_left], zero outside the
// input. x: (C, L) of one sample.
template <typename T>
void im2col(const Conv1DGeometry& g, const T* x, T* col, int64_t ld) {
  const Phases phases{g.stride, (g.length + g.stride - 1) / g.stride};
  const TapSpan* spans = tap_spans(g, phases);
  T* split = g.stride > 1 ? phase_scratch<T>(g.stride * phases.extent) : nullptr;
  for (int64_t c = 0; c < g.in_channels; ++c) {
    const T* x_row = x + c * g.length;
    const T* source = x_row;  // what the taps copy from: the row, or its phases
    if (g.stride > 1) {
      dispatch_stride(
          g.stride, [&]<int64_t kStride>() { to_phases<kStride>(phases, g.length, x_row, split); });
      source = split;
    }
    for (int64_t k = 0; k < g.kernel_size; ++k) {
      T* col_row = col + (c * g.kernel_size + k) * ld;
      const TapSpan& span = spans[k];
      std::fill(col_row, col_row + span.first, T(0));
      std::copy(source + (span.base + span.first), source + (span.base + span.last),
                col_row + span.first);
      std::fill(col_row + span.last, col_row + g.out_length, T(0));
    }
  }
}

// The inverse scatter: grad_x (C, L) of one sample = the sum of col's entries (row stride ld)
// over the (k, t) that read each input position (overwritten), added in increasing k.
template <typename T>
void col2im(const Conv1DGeometry& g, const T* col, T* grad_x, int64_t ld) {
  const Phases phases{g.stride, (g.length + g.stride - 1) / g.stride};
  const TapSpan* spans = tap_spans(g, phases);
  T* split = g.stride > 1 ? phase_scratch<T>(g.stride * phases.extent) : nullptr;
  for (int64_t c = 0; c < g.in_channels; ++c) {
    T* gx_row = grad_x + c * g.length;
    T* target = gx_row;  // what the taps add into: the row, or its phases
    if (g.stride > 1) {
      std::fill(split, split + g.stride * phases.extent, T(0));
      target = split;
    } else {
      std::fill(gx_row, gx_row + g.length, T(0));
    }
    for (int64_t k = 0; k < g.kernel_size; ++k) {
      const TapSpan& span = spans[k];
      T* tap = target + (span.base + span.first);
      const T* from = col + (c * g.kernel_size + k) * ld + span.first;
#pragma omp simd
      for (int64_t t = 0; t < span.last - span.first; ++t) tap[t] += from[t];
    }
    if (g.stride > 1) {  // every position is in exactly one phase: the row is overwritten
      dispatch_stride(g.stride, [&]<int64_t kStride>() {
        from_phases<kStride>(phases, g.length, split, gx_row);
      });
    }
  }
}

// Samples whose columns go through one GEMM: a product per sample is thin when L_out is small
// (N = L_out columns; 28 in generic_conv's last conv, 40 in Basset's), and the library GEMM runs
// such products well below its peak. A group's columns sit side by side (N = samples * L_out),
// up to kGroupColumns. Measured with bench/kernel_efficiency (one thread): 10-15% faster on the
// two L_out <= 40 layers, neutral at L_out 123, and no grouping from L_out 129 on (Basset's
// conv2, 184, whose columns alone are 2.4 MB per sample).
constexpr int64_t kGroupColumns = 256;

// The most samples a group of `samples` holds (a bound of samples_per_group, which does not
// grow with `samples`).
int64_t max_samples_per_group(const Conv1DGeometry& g, int64_t samples) {
  return std::clamp<int64_t>(kGroupColumns / g.out_length, 1, std::max<int64_t>(samples, 1));
}

// The group size for `samples`: the most samples within kGroupColumns, then spread
// evenly over as many groups (32 samples at L_out 28 make 4 groups of 8, not 3 of 9 and one of
// 5).
int64_t samples_per_group(const Conv1DGeometry& g, int64_t samples) {
  if (samples <= 1) return 1;
  const int64_t wanted = max_samples_per_group(g, samples);
  const int64_t groups = (samples + wanted - 1) / wanted;
  return (samples + groups - 1) / groups;
}

// The threads a conv over the batch uses: one when the work is too small to share.
int conv_threads(const Conv1DGeometry& g, int64_t rows) {
  const int64_t work = g.batch * g.out_channels * g.out_length * rows;
  return work >= kParallelGrain && g.batch > 1 ? omp_get_max_threads() : 1;
}

// dst (O, L_out) = src (rows of stride ld) + bias, then max(., 0) when relu; src may be dst.
template <typename T>
void add_bias_relu(const Conv1DGeometry& g, const T* src, int64_t ld, const T* bias, bool relu,
                   T* dst) {
  for (int64_t o = 0; o < g.out_channels; ++o) {
    const T* from = src + o * ld;
    T* to = dst + o * g.out_length;
    const T shift = bias ? bias[o] : T(0);
    if (relu) {
#pragma omp simd
      for (int64_t t = 0; t < g.out_length; ++t) {
        const T value = from[t] + shift;
        to[t] = value > T(0) ? value : T(0);  // the relu op's comparison
      }
    } else {
#pragma omp simd
      for (int64_t t = 0; t < g.out_length; ++t) to[t] = from[t] + shift;
    }
  }
}

}  // namespace

template <typename T>
void conv1d_forward_reference(const Conv1DGeometry& g, const T* x, const T* w, const T* bias,
                              T* out) {
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t o = 0; o < g.out_channels; ++o) {
      for (int64_t t = 0; t < g.out_length; ++t) {
        T total = bias ? bias[o] : T(0);
        for (int64_t c = 0; c < g.in_channels; ++c) {
          for (int64_t k = 0; k < g.kernel_size; ++k) {
            const int64_t p = g.input_position(t, k);
            if (p < 0 || p >= g.length) continue;
            total += x[(b * g.in_channels + c) * g.length + p] *
                     w[(o * g.in_channels + c) * g.kernel_size + k];
          }
        }
        out[(b * g.out_channels + o) * g.out_length + t] = total;
      }
    }
  }
}

template <typename T>
void conv1d_forward(const Conv1DGeometry& g, const T* x, const T* w, const T* bias, T* out,
                    bool relu) {
  const int64_t rows = g.in_channels * g.kernel_size;  // CK
  const int64_t per_sample = g.out_channels * g.out_length;
  if (conv1d_direct_applies(g)) {  // few output channels: no columns (kernels/cpu/conv1d_direct.h)
#pragma omp parallel for schedule(static) num_threads(conv_threads(g, rows))
    for (int64_t b = 0; b < g.batch; ++b) {
      conv1d_direct_forward_sample(g, x + b * g.in_channels * g.length, w, bias, relu,
                                   out + b * per_sample);
    }
    return;
  }
  // Per group of n samples: product (O, n * L_out) = w (O, CK) @ col (CK, n * L_out), then
  // each sample's (O, L_out) block plus the bias (and the ReLU) written to out[b] while in
  // cache. A group of one computes straight into out[b]. The groups follow from the batch size
  // alone, so every thread count runs the same products.
  const int64_t group = samples_per_group(g, g.batch);
  const int64_t groups = (g.batch + group - 1) / group;
#pragma omp parallel num_threads(conv_threads(g, rows))
  {
    T* col = conv_workspace<T, ColumnsTag>(rows * group * g.out_length).data();
    T* product = group > 1 ? conv_workspace<T, ProductTag>(per_sample * group).data() : nullptr;
#pragma omp for schedule(static)
    for (int64_t index = 0; index < groups; ++index) {
      const int64_t b0 = index * group;
      const int64_t count = std::min(group, g.batch - b0);
      const int64_t ld = count * g.out_length;
      for (int64_t i = 0; i < count; ++i) {
        im2col(g, x + (b0 + i) * g.in_channels * g.length, col + i * g.out_length, ld);
      }
      T* target = count > 1 ? product : out + b0 * per_sample;
      gemm<T>(g.out_channels, ld, rows, w, rows, 1, col, ld, 1, T(0), target, ld);
      if (count == 1 && bias == nullptr && !relu) continue;
      for (int64_t i = 0; i < count; ++i) {
        add_bias_relu(g, target + i * g.out_length, ld, bias, relu, out + (b0 + i) * per_sample);
      }
    }
  }
}

template <typename T>
void conv1d_backward_input_reference(const Conv1DGeometry& g, const T* grad_out, const T* w,
                                     T* grad_x) {
  std::fill(grad_x, grad_x + g.batch * g.in_channels * g.length, T(0));
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t o = 0; o < g.out_channels; ++o) {
      for (int64_t t = 0; t < g.out_length; ++t) {
        const T upstream = grad_out[(b * g.out_channels + o) * g.out_length + t];
        for (int64_t c = 0; c < g.in_channels; ++c) {
          for (int64_t k = 0; k < g.kernel_size; ++k) {
            const int64_t p = g.input_position(t, k);
            if (p < 0 || p >= g.length) continue;
            grad_x[(b * g.in_channels + c) * g.length + p] +=
                upstream * w[(o * g.in_channels + c) * g.kernel_size + k];
          }
        }
      }
    }
  }
}

template <typename T>
void conv1d_backward_input(const Conv1DGeometry& g, const T* grad_out, const T* w, T* grad_x) {
  const int64_t rows = g.in_channels * g.kernel_size;  // CK
  if (conv1d_direct_applies(g)) {
#pragma omp parallel for schedule(static) num_threads(conv_threads(g, rows))
    for (int64_t b = 0; b < g.batch; ++b) {
      conv1d_direct_backward_input_sample(g, grad_out + b * g.out_channels * g.out_length, w,
                                          grad_x + b * g.in_channels * g.length);
    }
    return;
  }
  // Per sample: col (CK, L_out) = w^T (CK, O) @ grad_out[b] (O, L_out), scattered back onto
  // the input positions it came from (col2im).
  for_each_sample_with_columns<T>(g, rows, [&](int64_t b, T* col) {
    gemm<T>(rows, g.out_length, g.out_channels, w, 1, rows,
            grad_out + b * g.out_channels * g.out_length, g.out_length, 1, T(0), col, g.out_length);
    col2im(g, col, grad_x + b * g.in_channels * g.length, g.out_length);
  });
}

template <typename T>
void conv1d_backward_weight_reference(const Conv1DGeometry& g, const T* grad_out, const T* x,
                                      T* grad_w) {
  std::fill(grad_w, grad_w + g.out_channels * g.in_channels * g.kernel_size, T(0));
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t o = 0; o < g.out_channels; ++o) {
      for (int64_t t = 0; t < g.out_length; ++t) {
        const T upstream = grad_out[(b * g.out_channels + o) * g.out_length + t];
        for (int64_t c = 0; c < g.in_channels; ++c) {
          for (int64_t k = 0; k < g.kernel_size; ++k) {
            const int64_t p = g.input_position(t, k);
            if (p < 0 || p >= g.length) continue;
            grad_w[(o * g.in_channels + c) * g.kernel_size + k] +=
                upstream * x[(b * g.in_channels + c) * g.length + p];
          }
        }
      }
    }
  }
}

template <typename T>
void conv1d_backward_weight(const Conv1DGeometry& g, const T* grad_out, const T* x, T* grad_w) {
  if (conv1d_direct_applies(g)) {  // the one-pass backward, asked for the weight only
    conv1d_backward<T>(g, grad_out, x, nullptr, nullptr, nullptr, nullptr, grad_w, nullptr);
    return;
  }
  weight_gradient_from_columns<T>(
      g, g.in_channels * g.kernel_size, grad_out,
      [&](int64_t b, T* col) { im2col(g, x + b * g.in_channels * g.length, col, g.out_length); },
      grad_w);
}

namespace {

// What conv1d_backward computes, and its scratch: the samples [first, last) add their
// gradients to weight_sum (O, rows) and bias_sum (O), and write their rows of grad_x.
template <typename T>
struct BackwardPass {
  const Conv1DGeometry& g;
  const T* grad_out;
  const T* x;
  const uint8_t* codes;
  const T* w;
  const T* relu_out;
  T* grad_x;
  bool with_bias;
  int64_t rows;  // CK, or 4K for codes
  bool direct;   // few output channels (kernels/cpu/conv1d_direct.h): groups of one

  // go (O, count * L_out): the gradients of samples b0.. side by side, masked by the fused
  // ReLU's output; a lone sample without a mask is read in place.
  const T* gathered_gradients(int64_t b0, int64_t count, T* gathered) const {
    const int64_t n_out = g.out_channels, n_pos = g.out_length, per_sample = n_out * n_pos;
    if (!relu_out && count == 1) return grad_out + b0 * per_sample;
    const int64_t ld = count * n_pos;
    for (int64_t i = 0; i < count; ++i) {
      const T* from = grad_out + (b0 + i) * per_sample;
      const T* mask = relu_out ? relu_out + (b0 + i) * per_sample : nullptr;
      for (int64_t o = 0; o < n_out; ++o) {
        T* to = gathered + o * ld + i * n_pos;
        if (mask) {
#pragma omp simd
          for (int64_t t = 0; t < n_pos; ++t) {
            to[t] = mask[o * n_pos + t] > T(0) ? from[o * n_pos + t] : T(0);
          }
        } else {
          std::copy(from + o * n_pos, from + (o + 1) * n_pos, to);
        }
      }
    }
    return gathered;
  }

  // One group of `count` samples from b0: bias and weight sums, then grad_x.
  void group(int64_t b0, int64_t count, T* col, T* gathered, T* weight_sum,
             double* bias_sum) const {
    const int64_t n_out = g.out_channels, n_pos = g.out_length, ld = count * n_pos;
    const T* go = gathered_gradients(b0, count, gathered);
    for (int64_t o = 0; with_bias && o < n_out; ++o) {
      double total = 0.0;
#pragma omp simd reduction(+ : total)
      for (int64_t j = 0; j < ld; ++j) total += static_cast<double>(go[o * ld + j]);
      bias_sum[o] += total;
    }
    if (direct) {
      const T* x_b = x + b0 * g.in_channels * g.length;
      conv1d_direct_backward_weight_sample(g, go, x_b, weight_sum);
      if (grad_x) {
        conv1d_direct_backward_input_sample(g, go, w, grad_x + b0 * g.in_channels * g.length);
      }
      return;
    }
    // grad_w += go (O, count * L_out) @ col^T
    for (int64_t i = 0; i < count; ++i) {
      if (codes) {
        onehot_columns(g, codes + (b0 + i) * g.length, col + i * n_pos, ld);
      } else {
        im2col(g, x + (b0 + i) * g.in_channels * g.length, col + i * n_pos, ld);
      }
    }
    gemm<T>(n_out, rows, ld, go, ld, 1, col, 1, ld, T(1), weight_sum, rows);
    // grad_x: col (CK, count * L_out) = w^T (CK, O) @ go, scattered back per sample (col2im).
    if (grad_x) {
      gemm<T>(rows, ld, n_out, w, 1, rows, go, ld, 1, T(0), col, ld);
      for (int64_t i = 0; i < count; ++i) {
        col2im(g, col + i * n_pos, grad_x + (b0 + i) * g.in_channels * g.length, ld);
      }
    }
  }
};

}  // namespace

template <typename T>
void conv1d_backward(const Conv1DGeometry& g, const T* grad_out, const T* x, const uint8_t* codes,
                     const T* w, const T* relu_out, T* grad_x, T* grad_w, T* grad_bias) {
  const int64_t n_out = g.out_channels, n_pos = g.out_length;
  const int64_t rows = codes ? 4 * g.kernel_size : g.in_channels * g.kernel_size;
  const int64_t weights = n_out * rows;
  const BackwardPass<T> pass{g,      grad_out,
                             x,      codes,
                             w,      relu_out,
                             grad_x, grad_bias != nullptr,
                             rows,   codes == nullptr && conv1d_direct_applies(g)};
  // The batch's sums run in slots fixed by its size (kernels/cpu/conv1d_columns.h): slot 0 sums
  // into grad_w, the others into partials added in slot order.
  const BatchSlots slots(g.batch);
  const int64_t group = pass.direct ? 1 : max_samples_per_group(g, slots.largest());
  T* weight_partials = conv_workspace<T, PartialsTag>(weights * (slots.count - 1)).data();
  double* bias_partials = conv_workspace<double, BiasPartialsTag>(n_out * slots.count).data();
#pragma omp parallel num_threads(slots.threads(conv_threads(g, rows)))
  {
    T* col = pass.direct ? nullptr : conv_workspace<T, ColumnsTag>(rows * group * n_pos).data();
    T* gathered = conv_workspace<T, MaskedGradientTag>(n_out * n_pos * group).data();
#pragma omp for schedule(static)
    for (int64_t slot = 0; slot < slots.count; ++slot) {
      T* weight_sum = slot == 0 ? grad_w : weight_partials + (slot - 1) * weights;
      std::fill(weight_sum, weight_sum + weights, T(0));
      double* bias_sum = bias_partials + slot * n_out;
      std::fill(bias_sum, bias_sum + n_out, 0.0);
      const int64_t first = slots.first(slot), last = slots.first(slot + 1);
      const int64_t slot_group = pass.direct ? 1 : samples_per_group(g, last - first);
      for (int64_t b0 = first; b0 < last; b0 += slot_group) {
        pass.group(b0, std::min(slot_group, last - b0), col, gathered, weight_sum, bias_sum);
      }
    }
#pragma omp for schedule(static)
    for (int64_t i = 0; i < weights; ++i) {
      for (int64_t slot = 1; slot < slots.count; ++slot) {
        grad_w[i] += weight_partials[(slot - 1) * weights + i];
      }
    }
#pragma omp single
    for (int64_t o = 0; grad_bias && o < n_out; ++o) {
      double total = 0.0;
      for (int64_t slot = 0; slot < slots.count; ++slot) total += bias_partials[slot * n_out + o];
      grad_bias[o] = static_cast<T>(total);
    }
  }
}

template <typename T>
void conv1d_backward_reference(const Conv1DGeometry& g, const T* grad_out, const T* x,
                               const uint8_t* codes, const T* w, const T* relu_out, T* grad_x,
                               T* grad_w, T* grad_bias) {
  const int64_t outputs = g.batch * g.out_channels * g.out_length;
  std::vector<T> masked(grad_out, grad_out + outputs);
  for (int64_t i = 0; relu_out && i < outputs; ++i) {
    if (!(relu_out[i] > T(0))) masked[static_cast<size_t>(i)] = T(0);
  }
  std::vector<T> one_hot;
  if (codes) {
    one_hot.resize(static_cast<size_t>(g.batch * 4 * g.length));
    one_hot_from_codes(g.batch, g.length, codes, one_hot.data());
    x = one_hot.data();
  }
  conv1d_backward_weight_reference(g, masked.data(), x, grad_w);
  if (grad_x) conv1d_backward_input_reference(g, masked.data(), w, grad_x);
  for (int64_t o = 0; grad_bias && o < g.out_channels; ++o) {
    double total = 0.0;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t t = 0; t < g.out_length; ++t) {
        total += static_cast<double>(
            masked[static_cast<size_t>((b * g.out_channels + o) * g.out_length + t)]);
      }
    }
    grad_bias[o] = static_cast<T>(total);
  }
}

#define STRAND_INSTANTIATE_CONV1D(T)                                                               \
  template void conv1d_forward_reference<T>(const Conv1DGeometry&, const T*, const T*, const T*,   \
                                            T*);                                                   \
  template void conv1d_forward<T>(const Conv1DGeometry&, const T*, const T*, const T*, T*, bool);  \
  template void conv1d_backward_input_reference<T>(const Conv1DGeometry&, const T*, const T*, T*); \
  template void conv1d_backward_input<T>(const Conv1DGeometry&, const T*, const T*, T*);           \
  template void conv1d_backward_weight_reference<T>(const Conv1DGeometry&, const T*, const T*,     \
                                                    T*);                                           \
  template void conv1d_backward_weight<T>(const Conv1DGeometry&, const T*, const T*, T*);          \
  template void conv1d_backward<T>(const Conv1DGeometry&, const T*, const T*, const uint8_t*,      \
                                   const T*, const T*, T*, T*, T*);                                \
  template void conv1d_backward_reference<T>(const Conv1DGeometry&, const T*, const T*,            \
                                             const uint8_t*, const T*, const T*, T*, T*, T*);
STRAND_INSTANTIATE_CONV1D(float)
STRAND_INSTANTIATE_CONV1D(double)
#undef STRAND_INSTANTIATE_CONV1D

}  // namespace strand::kernels::cpu
