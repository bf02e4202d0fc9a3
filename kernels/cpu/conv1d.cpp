// Dense Conv1D CPU kernels: the readable oracles, and the fast versions as im2col + GEMM
// (kernels/cpu/gemm.h) for any stride, dilation and padding.
#include "kernels/cpu/conv1d.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/conv1d_columns.h"
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

// col (C*K, L_out): col[(c * K + k) * L_out + t] = x[c, t * stride + k * dilation - pad_left],
// zero outside the input. x: (C, L) of one sample.
template <typename T>
void im2col(const Conv1DGeometry& g, const T* x, T* col) {
  for (int64_t c = 0; c < g.in_channels; ++c) {
    const T* x_row = x + c * g.length;
    for (int64_t k = 0; k < g.kernel_size; ++k) {
      T* col_row = col + (c * g.kernel_size + k) * g.out_length;
      const ValidRange range = valid_outputs(g, k);
      const int64_t shift = k * g.dilation - g.pad_left;
      std::fill(col_row, col_row + range.first, T(0));
      if (g.stride == 1) {
        std::copy(x_row + range.first + shift, x_row + range.last + shift, col_row + range.first);
      } else {
        for (int64_t t = range.first; t < range.last; ++t) col_row[t] = x_row[t * g.stride + shift];
      }
      std::fill(col_row + range.last, col_row + g.out_length, T(0));
    }
  }
}

// The inverse scatter: grad_x (C, L) of one sample = the sum of col's entries over the
// (k, t) that read each input position (overwritten).
template <typename T>
void col2im(const Conv1DGeometry& g, const T* col, T* grad_x) {
  std::fill(grad_x, grad_x + g.in_channels * g.length, T(0));
  for (int64_t c = 0; c < g.in_channels; ++c) {
    T* gx_row = grad_x + c * g.length;
    for (int64_t k = 0; k < g.kernel_size; ++k) {
      const T* col_row = col + (c * g.kernel_size + k) * g.out_length;
      const ValidRange range = valid_outputs(g, k);
      const int64_t shift = k * g.dilation - g.pad_left;
      if (g.stride == 1) {
#pragma omp simd
        for (int64_t t = range.first; t < range.last; ++t) gx_row[t + shift] += col_row[t];
      } else {
        for (int64_t t = range.first; t < range.last; ++t) {
          gx_row[t * g.stride + shift] += col_row[t];
        }
      }
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
void conv1d_forward(const Conv1DGeometry& g, const T* x, const T* w, const T* bias, T* out) {
  const int64_t rows = g.in_channels * g.kernel_size;  // CK
  // Per sample: out[b] (O, L_out) = w (O, CK) @ col (CK, L_out), then the bias.
  for_each_sample_with_columns<T>(g, rows, [&](int64_t b, T* col) {
    im2col(g, x + b * g.in_channels * g.length, col);
    T* out_b = out + b * g.out_channels * g.out_length;
    gemm<T>(g.out_channels, g.out_length, rows, w, rows, 1, col, g.out_length, 1, T(0), out_b,
            g.out_length);
    if (bias == nullptr) return;
    for (int64_t o = 0; o < g.out_channels; ++o) {
      T* out_row = out_b + o * g.out_length;
#pragma omp simd
      for (int64_t t = 0; t < g.out_length; ++t) out_row[t] += bias[o];
    }
  });
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
  // Per sample: col (CK, L_out) = w^T (CK, O) @ grad_out[b] (O, L_out), scattered back onto
  // the input positions it came from (col2im).
  for_each_sample_with_columns<T>(g, rows, [&](int64_t b, T* col) {
    gemm<T>(rows, g.out_length, g.out_channels, w, 1, rows,
            grad_out + b * g.out_channels * g.out_length, g.out_length, 1, T(0), col, g.out_length);
    col2im(g, col, grad_x + b * g.in_channels * g.length);
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
  weight_gradient_from_columns<T>(
      g, g.in_channels * g.kernel_size, grad_out,
      [&](int64_t b, T* col) { im2col(g, x + b * g.in_channels * g.length, col); }, grad_w);
}

#define STRAND_INSTANTIATE_CONV1D(T)                                                               \
  template void conv1d_forward_reference<T>(const Conv1DGeometry&, const T*, const T*, const T*,   \
                                            T*);                                                   \
  template void conv1d_forward<T>(const Conv1DGeometry&, const T*, const T*, const T*, T*);        \
  template void conv1d_backward_input_reference<T>(const Conv1DGeometry&, const T*, const T*, T*); \
  template void conv1d_backward_input<T>(const Conv1DGeometry&, const T*, const T*, T*);           \
  template void conv1d_backward_weight_reference<T>(const Conv1DGeometry&, const T*, const T*,     \
                                                    T*);                                           \
  template void conv1d_backward_weight<T>(const Conv1DGeometry&, const T*, const T*, T*);
STRAND_INSTANTIATE_CONV1D(float)
STRAND_INSTANTIATE_CONV1D(double)
#undef STRAND_INSTANTIATE_CONV1D

}  // namespace strand::kernels::cpu
