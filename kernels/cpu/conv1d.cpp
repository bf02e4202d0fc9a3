// Dense Conv1D CPU kernels.
#include "kernels/cpu/conv1d.h"

#include <algorithm>

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
  const int64_t work = g.batch * g.out_channels * g.out_length * g.in_channels * g.kernel_size;
  // Each (b, o) output row accumulates shifted input rows scaled by one weight: the inner
  // loop is a contiguous axpy when stride == 1.
#pragma omp parallel for collapse(2) schedule(static) if (work >= kParallelGrain)
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t o = 0; o < g.out_channels; ++o) {
      T* out_row = out + (b * g.out_channels + o) * g.out_length;
      std::fill(out_row, out_row + g.out_length, bias ? bias[o] : T(0));
      for (int64_t c = 0; c < g.in_channels; ++c) {
        const T* x_row = x + (b * g.in_channels + c) * g.length;
        for (int64_t k = 0; k < g.kernel_size; ++k) {
          const T weight = w[(o * g.in_channels + c) * g.kernel_size + k];
          // Plain variables: an OpenMP region cannot capture structured bindings before clang 16.
          const ValidRange range = valid_outputs(g, k);
          const int64_t first = range.first;
          const int64_t last = range.last;
          const int64_t shift = k * g.dilation - g.pad_left;
          if (g.stride == 1) {
#pragma omp simd
            for (int64_t t = first; t < last; ++t) out_row[t] += weight * x_row[t + shift];
          } else {
            for (int64_t t = first; t < last; ++t) {
              out_row[t] += weight * x_row[t * g.stride + shift];
            }
          }
        }
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
  const int64_t work = g.batch * g.out_channels * g.out_length * g.in_channels * g.kernel_size;
  // Each (b, c) input-gradient row is owned by one thread: no races.
#pragma omp parallel for collapse(2) schedule(static) if (work >= kParallelGrain)
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t c = 0; c < g.in_channels; ++c) {
      T* gx_row = grad_x + (b * g.in_channels + c) * g.length;
      std::fill(gx_row, gx_row + g.length, T(0));
      for (int64_t o = 0; o < g.out_channels; ++o) {
        const T* go_row = grad_out + (b * g.out_channels + o) * g.out_length;
        for (int64_t k = 0; k < g.kernel_size; ++k) {
          const T weight = w[(o * g.in_channels + c) * g.kernel_size + k];
          // Plain variables: an OpenMP region cannot capture structured bindings before clang 16.
          const ValidRange range = valid_outputs(g, k);
          const int64_t first = range.first;
          const int64_t last = range.last;
          const int64_t shift = k * g.dilation - g.pad_left;
          if (g.stride == 1) {
#pragma omp simd
            for (int64_t t = first; t < last; ++t) gx_row[t + shift] += weight * go_row[t];
          } else {
            for (int64_t t = first; t < last; ++t) {
              gx_row[t * g.stride + shift] += weight * go_row[t];
            }
          }
        }
      }
    }
  }
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
  const int64_t work = g.batch * g.out_channels * g.out_length * g.in_channels * g.kernel_size;
  // Each weight is a dot product of a grad_out row with a shifted input row, summed over b.
#pragma omp parallel for collapse(2) schedule(static) if (work >= kParallelGrain)
  for (int64_t o = 0; o < g.out_channels; ++o) {
    for (int64_t c = 0; c < g.in_channels; ++c) {
      for (int64_t k = 0; k < g.kernel_size; ++k) {
        // Plain variables: an OpenMP region cannot capture structured bindings before clang 16.
        const ValidRange range = valid_outputs(g, k);
        const int64_t first = range.first;
        const int64_t last = range.last;
        T total = T(0);
        for (int64_t b = 0; b < g.batch; ++b) {
          const T* go_row = grad_out + (b * g.out_channels + o) * g.out_length;
          const T* x_row = x + (b * g.in_channels + c) * g.length;
          const int64_t shift = k * g.dilation - g.pad_left;
          if (g.stride == 1) {
#pragma omp simd reduction(+ : total)
            for (int64_t t = first; t < last; ++t) total += go_row[t] * x_row[t + shift];
          } else {
            for (int64_t t = first; t < last; ++t) total += go_row[t] * x_row[t * g.stride + shift];
          }
        }
        grad_w[(o * g.in_channels + c) * g.kernel_size + k] = total;
      }
    }
  }
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
