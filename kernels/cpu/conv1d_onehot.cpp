// One-hot (gather) Conv1D and fused Conv1D+ReLU+GlobalMaxPool CPU kernels.
#include "kernels/cpu/conv1d_onehot.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/conv1d.h"
#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {
namespace {

constexpr int64_t kCodes = 5;  // A, C, G, T, N

// table (K, 5, O): table[k][base][o] = w[o, base, k]; the N row is zero. Laid out so that the
// O filters of one (tap, base) are contiguous: the gather adds whole rows, which vectorises.
template <typename T>
std::vector<T> gather_table(const Conv1dGeometry& g, const T* w) {
  std::vector<T> table(static_cast<size_t>(g.kernel_size * kCodes * g.out_channels), T(0));
  for (int64_t o = 0; o < g.out_channels; ++o) {
    for (int64_t base = 0; base < 4; ++base) {
      for (int64_t k = 0; k < g.kernel_size; ++k) {
        table[(k * kCodes + base) * g.out_channels + o] = w[(o * 4 + base) * g.kernel_size + k];
      }
    }
  }
  return table;
}

// The codes of one sample with the padding made explicit as N, so the inner loops need no
// bounds checks: padded[j] is the code at input position j - pad_left.
void padded_codes(const Conv1dGeometry& g, const uint8_t* codes, std::vector<uint8_t>& padded) {
  const int64_t span = (g.out_length - 1) * g.stride + (g.kernel_size - 1) * g.dilation + 1;
  padded.assign(static_cast<size_t>(std::max<int64_t>(span, 0)), kBaseN);
  for (int64_t j = 0; j < span; ++j) {
    const int64_t p = j - g.pad_left;
    if (p >= 0 && p < g.length) padded[j] = std::min<uint8_t>(codes[p], kBaseN);
  }
}

// acc (O) = bias + sum_k table[k][padded[t * stride + k * dilation]].
template <typename T>
inline void gather_position(const Conv1dGeometry& g, const T* table, const uint8_t* padded,
                            int64_t t, const T* bias, T* acc) {
  const int64_t n_out = g.out_channels;
  if (bias) {
    std::copy(bias, bias + n_out, acc);
  } else {
    std::fill(acc, acc + n_out, T(0));
  }
  const uint8_t* window = padded + t * g.stride;
  for (int64_t k = 0; k < g.kernel_size; ++k) {
    const T* row = table + (k * kCodes + window[k * g.dilation]) * n_out;
#pragma omp simd
    for (int64_t o = 0; o < n_out; ++o) acc[o] += row[o];
  }
}

}  // namespace

template <typename T>
void one_hot_from_codes(int64_t batch, int64_t length, const uint8_t* codes, T* one_hot) {
  std::fill(one_hot, one_hot + batch * 4 * length, T(0));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t p = 0; p < length; ++p) {
      const uint8_t base = codes[b * length + p];
      if (base < 4) one_hot[(b * 4 + base) * length + p] = T(1);
    }
  }
}

template <typename T>
void conv1d_onehot_forward_reference(const Conv1dGeometry& g, const uint8_t* codes, const T* w,
                                     const T* bias, T* out) {
  std::vector<T> one_hot(static_cast<size_t>(g.batch * 4 * g.length));
  one_hot_from_codes(g.batch, g.length, codes, one_hot.data());
  conv1d_forward_reference(g, one_hot.data(), w, bias, out);
}

template <typename T>
void conv1d_onehot_forward(const Conv1dGeometry& g, const uint8_t* codes, const T* w, const T* bias,
                           T* out) {
  const std::vector<T> table = gather_table(g, w);
#pragma omp parallel
  {
    std::vector<uint8_t> padded;
    std::vector<T> acc(static_cast<size_t>(g.out_channels));
#pragma omp for schedule(static)
    for (int64_t b = 0; b < g.batch; ++b) {
      padded_codes(g, codes + b * g.length, padded);
      T* out_b = out + b * g.out_channels * g.out_length;
      for (int64_t t = 0; t < g.out_length; ++t) {
        gather_position(g, table.data(), padded.data(), t, bias, acc.data());
        for (int64_t o = 0; o < g.out_channels; ++o) out_b[o * g.out_length + t] = acc[o];
      }
    }
  }
}

template <typename T>
void conv1d_onehot_backward_weight(const Conv1dGeometry& g, const T* grad_out, const uint8_t* codes,
                                   T* grad_w) {
  std::fill(grad_w, grad_w + g.out_channels * 4 * g.kernel_size, T(0));
  // Each filter o owns its slice of grad_w, so threads split over o without races.
#pragma omp parallel
  {
    std::vector<uint8_t> padded;
#pragma omp for schedule(static)
    for (int64_t o = 0; o < g.out_channels; ++o) {
      T* gw = grad_w + o * 4 * g.kernel_size;
      for (int64_t b = 0; b < g.batch; ++b) {
        padded_codes(g, codes + b * g.length, padded);
        const T* go_row = grad_out + (b * g.out_channels + o) * g.out_length;
        for (int64_t t = 0; t < g.out_length; ++t) {
          const uint8_t* window = padded.data() + t * g.stride;
          for (int64_t k = 0; k < g.kernel_size; ++k) {
            const uint8_t base = window[k * g.dilation];
            if (base < 4) gw[base * g.kernel_size + k] += go_row[t];
          }
        }
      }
    }
  }
}

namespace {
// relu(max) and first argmax over each (b, o) row of a conv output (B, O, L_out).
template <typename T>
void relu_max_rows(const Conv1dGeometry& g, const T* conv, T* out, int64_t* argmax) {
  for (int64_t row = 0; row < g.batch * g.out_channels; ++row) {
    const T* values = conv + row * g.out_length;
    int64_t best = 0;
    for (int64_t t = 1; t < g.out_length; ++t) {
      if (values[t] > values[best]) best = t;
    }
    out[row] = std::max(values[best], T(0));
    argmax[row] = best;
  }
}
}  // namespace

template <typename T>
void conv1d_relu_max_onehot_reference(const Conv1dGeometry& g, const uint8_t* codes, const T* w,
                                      const T* bias, T* out, int64_t* argmax) {
  std::vector<T> conv(static_cast<size_t>(g.batch * g.out_channels * g.out_length));
  conv1d_onehot_forward_reference(g, codes, w, bias, conv.data());
  relu_max_rows(g, conv.data(), out, argmax);
}

template <typename T>
void conv1d_relu_max_onehot(const Conv1dGeometry& g, const uint8_t* codes, const T* w,
                            const T* bias, T* out, int64_t* argmax) {
  const std::vector<T> table = gather_table(g, w);
  const int64_t n_out = g.out_channels;
#pragma omp parallel
  {
    std::vector<uint8_t> padded;
    std::vector<T> acc(static_cast<size_t>(n_out));
    std::vector<T> best(static_cast<size_t>(n_out));
    std::vector<int64_t> best_t(static_cast<size_t>(n_out));
#pragma omp for schedule(static)
    for (int64_t b = 0; b < g.batch; ++b) {
      padded_codes(g, codes + b * g.length, padded);
      std::fill(best.begin(), best.end(), -std::numeric_limits<T>::infinity());
      std::fill(best_t.begin(), best_t.end(), 0);
      for (int64_t t = 0; t < g.out_length; ++t) {
        gather_position(g, table.data(), padded.data(), t, bias, acc.data());
        // Strictly greater keeps the first position of the max, as the oracle does.
#pragma omp simd
        for (int64_t o = 0; o < n_out; ++o) {
          const bool better = acc[o] > best[o];
          best[o] = better ? acc[o] : best[o];
          best_t[o] = better ? t : best_t[o];
        }
      }
      for (int64_t o = 0; o < n_out; ++o) {
        out[b * n_out + o] = std::max(best[o], T(0));
        argmax[b * n_out + o] = best_t[o];
      }
    }
  }
}

template <typename T>
void conv1d_relu_max_dense_reference(const Conv1dGeometry& g, const T* x, const T* w, const T* bias,
                                     T* out, int64_t* argmax) {
  std::vector<T> conv(static_cast<size_t>(g.batch * g.out_channels * g.out_length));
  conv1d_forward_reference(g, x, w, bias, conv.data());
  relu_max_rows(g, conv.data(), out, argmax);
}

template <typename T>
void conv1d_relu_max_dense(const Conv1dGeometry& g, const T* x, const T* w, const T* bias, T* out,
                           int64_t* argmax) {
  // One sample at a time through the fast dense conv keeps the activation map to (O, L_out).
  Conv1dGeometry one = g;
  one.batch = 1;
  std::vector<T> conv(static_cast<size_t>(g.out_channels * g.out_length));
  for (int64_t b = 0; b < g.batch; ++b) {
    conv1d_forward(one, x + b * g.in_channels * g.length, w, bias, conv.data());
    relu_max_rows(one, conv.data(), out + b * g.out_channels, argmax + b * g.out_channels);
  }
}

template <typename T>
void conv1d_relu_max_backward(const Conv1dGeometry& g, const T* grad_out, const uint8_t* codes,
                              const T* x, const T* w, const T* out, const int64_t* argmax,
                              T* grad_x, T* grad_w, T* grad_bias) {
  const int64_t n_out = g.out_channels;
  const int64_t n_in = g.in_channels;
  const int64_t taps = g.kernel_size;
  // grad_w and grad_bias: filter o owns its rows.
#pragma omp parallel for schedule(static) if (g.batch * n_out * n_in * taps >= kParallelGrain)
  for (int64_t o = 0; o < n_out; ++o) {
    T* gw = grad_w + o * n_in * taps;
    std::fill(gw, gw + n_in * taps, T(0));
    T bias_total = T(0);
    for (int64_t b = 0; b < g.batch; ++b) {
      const int64_t row = b * n_out + o;
      if (!(out[row] > T(0))) continue;  // relu closed: no gradient
      const T upstream = grad_out[row];
      bias_total += upstream;
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t p = g.input_position(argmax[row], k);
        if (p < 0 || p >= g.length) continue;
        if (codes) {
          const uint8_t base = codes[b * g.length + p];
          if (base < 4) gw[base * taps + k] += upstream;
        } else {
          for (int64_t c = 0; c < n_in; ++c)
            gw[c * taps + k] += upstream * x[(b * n_in + c) * g.length + p];
        }
      }
    }
    if (grad_bias) grad_bias[o] = bias_total;
  }
  if (grad_x == nullptr) return;
    // grad_x: sample b owns its rows.
#pragma omp parallel for schedule(static) if (g.batch * n_out * n_in * taps >= kParallelGrain)
  for (int64_t b = 0; b < g.batch; ++b) {
    T* gx = grad_x + b * n_in * g.length;
    std::fill(gx, gx + n_in * g.length, T(0));
    for (int64_t o = 0; o < n_out; ++o) {
      const int64_t row = b * n_out + o;
      if (!(out[row] > T(0))) continue;
      const T upstream = grad_out[row];
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t p = g.input_position(argmax[row], k);
        if (p < 0 || p >= g.length) continue;
        for (int64_t c = 0; c < n_in; ++c)
          gx[c * g.length + p] += upstream * w[(o * n_in + c) * taps + k];
      }
    }
  }
}

#define STRAND_INSTANTIATE_ONEHOT(T)                                                              \
  template void one_hot_from_codes<T>(int64_t, int64_t, const uint8_t*, T*);                      \
  template void conv1d_onehot_forward_reference<T>(const Conv1dGeometry&, const uint8_t*,         \
                                                   const T*, const T*, T*);                       \
  template void conv1d_onehot_forward<T>(const Conv1dGeometry&, const uint8_t*, const T*,         \
                                         const T*, T*);                                           \
  template void conv1d_onehot_backward_weight<T>(const Conv1dGeometry&, const T*, const uint8_t*, \
                                                 T*);                                             \
  template void conv1d_relu_max_onehot_reference<T>(const Conv1dGeometry&, const uint8_t*,        \
                                                    const T*, const T*, T*, int64_t*);            \
  template void conv1d_relu_max_onehot<T>(const Conv1dGeometry&, const uint8_t*, const T*,        \
                                          const T*, T*, int64_t*);                                \
  template void conv1d_relu_max_dense_reference<T>(const Conv1dGeometry&, const T*, const T*,     \
                                                   const T*, T*, int64_t*);                       \
  template void conv1d_relu_max_dense<T>(const Conv1dGeometry&, const T*, const T*, const T*, T*, \
                                         int64_t*);                                               \
  template void conv1d_relu_max_backward<T>(const Conv1dGeometry&, const T*, const uint8_t*,      \
                                            const T*, const T*, const T*, const int64_t*, T*, T*, \
                                            T*);
STRAND_INSTANTIATE_ONEHOT(float)
STRAND_INSTANTIATE_ONEHOT(double)
#undef STRAND_INSTANTIATE_ONEHOT

}  // namespace strand::kernels::cpu
