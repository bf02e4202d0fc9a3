// Direct Conv1D kernels for few output channels (contracts: kernels/cpu/conv1d_direct.h).
#include "kernels/cpu/conv1d_direct.h"

#include <algorithm>
#include <vector>

namespace strand::kernels::cpu {
namespace {

// Output positions per register block: four 64-byte vectors per output channel.
template <typename T>
constexpr int64_t block_positions() {
  return 256 / static_cast<int64_t>(sizeof(T));
}
// Lanes of one 64-byte vector.
template <typename T>
constexpr int64_t vector_lanes() {
  return 64 / static_cast<int64_t>(sizeof(T));
}

int64_t round_up(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// dst (rows, extent) with dst[r, j] = src[r, j - shift] where src (rows, length) has that entry,
// else zero: the rows made explicit with their padding, so the inner loops check no bounds.
template <typename T>
void padded_rows(const T* src, int64_t rows, int64_t length, int64_t shift, int64_t extent,
                 T* dst) {
  const int64_t first = std::clamp<int64_t>(shift, 0, extent);
  const int64_t last = std::clamp<int64_t>(length + shift, first, extent);
  for (int64_t r = 0; r < rows; ++r) {
    T* row = dst + r * extent;
    std::fill(row, row + first, T(0));
    std::copy(src + r * length + (first - shift), src + r * length + (last - shift), row + first);
    std::fill(row + last, row + extent, T(0));
  }
}

// Per-thread scratch, kept between calls.
template <typename T, int kSlot>
T* scratch(int64_t elements) {
  thread_local std::vector<T> buffer;
  if (static_cast<int64_t>(buffer.size()) < elements) buffer.resize(static_cast<size_t>(elements));
  return buffer.data();
}

// Weights addressed by strides, so the input gradient can read the transposed, flipped kernel
// in place: weight(o, c, k) = base[o * o_stride + c * c_stride + k * k_stride].
template <typename T>
struct StridedWeights {
  const T* base;
  int64_t o_stride, c_stride, k_stride;
  T at(int64_t o, int64_t c, int64_t k) const {
    return base[o * o_stride + c * c_stride + k * k_stride];
  }
};

// out[o, t] = bias[o] + sum_{c, k} weight(o, c, k) * in[c, t + k * dilation] for o < count
// (<= kO), t < out_length; in: (n_in, in_ld), zero-padded past every read. kO output rows times
// block_positions() positions of accumulators stay in registers while (c, k) stream.
template <typename T, int64_t kO>
void direct_rows(int64_t count, int64_t n_in, int64_t taps, int64_t dilation, const T* in,
                 int64_t in_ld, const StridedWeights<T>& weight, const T* bias, bool relu, T* out,
                 int64_t out_length) {
  constexpr int64_t kW = block_positions<T>();
  for (int64_t t0 = 0; t0 < out_length; t0 += kW) {
    T acc[kO][kW];
    for (int64_t o = 0; o < kO; ++o) {
      const T start = bias && o < count ? bias[o] : T(0);
#pragma omp simd
      for (int64_t i = 0; i < kW; ++i) acc[o][i] = start;
    }
    for (int64_t c = 0; c < n_in; ++c) {
      for (int64_t k = 0; k < taps; ++k) {
        const T* xs = in + c * in_ld + t0 + k * dilation;
        T wv[kO];
        for (int64_t o = 0; o < kO; ++o) wv[o] = o < count ? weight.at(o, c, k) : T(0);
        for (int64_t o = 0; o < kO; ++o) {
#pragma omp simd
          for (int64_t i = 0; i < kW; ++i) acc[o][i] += wv[o] * xs[i];
        }
      }
    }
    const int64_t positions = std::min(kW, out_length - t0);
    for (int64_t o = 0; o < count; ++o) {
      T* row = out + o * out_length + t0;
      for (int64_t i = 0; i < positions; ++i) {
        row[i] = relu && !(acc[o][i] > T(0)) ? T(0) : acc[o][i];  // the relu op's comparison
      }
    }
  }
}

// Runs body.template operator()<kO>() with kO = count (1 ..= kDirectMaxOutChannels) as a
// constant, so no accumulator is spent on a channel that does not exist.
template <typename Body>
void dispatch_rows(int64_t count, Body&& body) {
  static_assert(kDirectMaxOutChannels == 4);
  switch (count) {
    case 1:
      return body.template operator()<1>();
    case 2:
      return body.template operator()<2>();
    case 3:
      return body.template operator()<3>();
    default:
      return body.template operator()<4>();
  }
}

// Runs direct_rows over `rows` output rows in blocks of up to kDirectMaxOutChannels.
template <typename T>
void direct_all_rows(int64_t rows, int64_t n_in, int64_t taps, int64_t dilation, const T* in,
                     int64_t in_ld, const StridedWeights<T>& weight, const T* bias, bool relu,
                     T* out, int64_t out_length) {
  for (int64_t o0 = 0; o0 < rows; o0 += kDirectMaxOutChannels) {
    const int64_t count = std::min(kDirectMaxOutChannels, rows - o0);
    const StridedWeights<T> block{weight.base + o0 * weight.o_stride, weight.o_stride,
                                  weight.c_stride, weight.k_stride};
    dispatch_rows(count, [&]<int64_t kO>() {
      direct_rows<T, kO>(count, n_in, taps, dilation, in, in_ld, block, bias ? bias + o0 : nullptr,
                         relu, out + o0 * out_length, out_length);
    });
  }
}

}  // namespace

template <typename T>
void conv1d_direct_forward_sample(const Conv1DGeometry& g, const T* x_b, const T* w, const T* bias,
                                  bool relu, T* out_b) {
  // x padded: entry j of a row is input position j - pad_left; out[t] reads t + k * dilation.
  const int64_t extent =
      round_up(g.out_length, block_positions<T>()) + (g.kernel_size - 1) * g.dilation;
  T* padded = scratch<T, 0>(g.in_channels * extent);
  padded_rows(x_b, g.in_channels, g.length, g.pad_left, extent, padded);
  const StridedWeights<T> weight{w, g.in_channels * g.kernel_size, g.kernel_size, 1};
  direct_all_rows(g.out_channels, g.in_channels, g.kernel_size, g.dilation, padded, extent, weight,
                  bias, relu, out_b, g.out_length);
}

template <typename T>
void conv1d_direct_backward_input_sample(const Conv1DGeometry& g, const T* grad_out_b, const T* w,
                                         T* grad_x_b) {
  // grad_x[c, p] = sum_{o, k} w[o, c, k] * grad_out[o, p + pad_left - k * dilation]: a direct
  // conv of grad_out (O inputs, C outputs) with the kernel flipped (k' = K - 1 - k), over
  // grad_out shifted by (K - 1) * dilation - pad_left.
  const int64_t reach = (g.kernel_size - 1) * g.dilation;
  const int64_t extent = round_up(g.length, block_positions<T>()) + reach;
  T* padded = scratch<T, 1>(g.out_channels * extent);
  padded_rows(grad_out_b, g.out_channels, g.out_length, reach - g.pad_left, extent, padded);
  const StridedWeights<T> flipped{w + (g.kernel_size - 1), g.kernel_size,
                                  g.in_channels * g.kernel_size, -1};
  direct_all_rows(g.in_channels, g.out_channels, g.kernel_size, g.dilation, padded, extent, flipped,
                  static_cast<const T*>(nullptr), false, grad_x_b, g.length);
}

template <typename T>
void conv1d_direct_backward_weight_sample(const Conv1DGeometry& g, const T* grad_out_b,
                                          const T* x_b, T* grad_w) {
  // grad_w[o, c, k] += sum_t grad_out[o, t] * x_padded[c, t + k * dilation]: per input row,
  // blocks of kK taps for every output channel (O * kK vector accumulators), over positions in
  // vectors, then each accumulator's lanes summed in order.
  constexpr int64_t kLanes = vector_lanes<T>();
  constexpr int64_t kK = 4;
  const int64_t positions = round_up(g.out_length, kLanes);
  const int64_t extent = positions + (g.kernel_size - 1) * g.dilation;
  T* padded = scratch<T, 0>(g.in_channels * extent);
  padded_rows(x_b, g.in_channels, g.length, g.pad_left, extent, padded);
  T* gradient = scratch<T, 2>(g.out_channels * positions);  // grad_out, zero past L_out
  padded_rows(grad_out_b, g.out_channels, g.out_length, 0, positions, gradient);
  dispatch_rows(g.out_channels, [&]<int64_t kO>() {
    for (int64_t c = 0; c < g.in_channels; ++c) {
      const T* x_row = padded + c * extent;
      for (int64_t k0 = 0; k0 < g.kernel_size; k0 += kK) {
        T acc[kO][kK][kLanes] = {};
        for (int64_t t = 0; t < positions; t += kLanes) {
          for (int64_t o = 0; o < kO; ++o) {
            const T* go = gradient + o * positions + t;
            for (int64_t kk = 0; kk < kK; ++kk) {
              // Taps past K repeat the last one (inside the padded row); they are discarded.
              const T* xs = x_row + t + std::min(k0 + kk, g.kernel_size - 1) * g.dilation;
#pragma omp simd
              for (int64_t i = 0; i < kLanes; ++i) acc[o][kk][i] += go[i] * xs[i];
            }
          }
        }
        for (int64_t o = 0; o < kO; ++o) {
          for (int64_t kk = 0; kk < kK && k0 + kk < g.kernel_size; ++kk) {
            T total = T(0);
            for (int64_t i = 0; i < kLanes; ++i) total += acc[o][kk][i];
            grad_w[(o * g.in_channels + c) * g.kernel_size + k0 + kk] += total;
          }
        }
      }
    }
  });
}

#define STRAND_INSTANTIATE_CONV1D_DIRECT(T)                                                        \
  template void conv1d_direct_forward_sample<T>(const Conv1DGeometry&, const T*, const T*,         \
                                                const T*, bool, T*);                               \
  template void conv1d_direct_backward_input_sample<T>(const Conv1DGeometry&, const T*, const T*,  \
                                                       T*);                                        \
  template void conv1d_direct_backward_weight_sample<T>(const Conv1DGeometry&, const T*, const T*, \
                                                        T*);
STRAND_INSTANTIATE_CONV1D_DIRECT(float)
STRAND_INSTANTIATE_CONV1D_DIRECT(double)
#undef STRAND_INSTANTIATE_CONV1D_DIRECT

}  // namespace strand::kernels::cpu
