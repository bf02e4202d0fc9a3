// Direct Conv1D kernels for few output channels (contracts: kernels/cpu/conv1d_direct.h).
#include "kernels/cpu/conv1d_direct.h"

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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

#if defined(__AVX512F__)
// The weight gradient's tap loop for float rows and dilation 1, by register rotation: tap k0 + s
// of positions [t, t + 16) reads x[t + k0 + s, ...], which is lanes s..15 of the vector at
// t + k0 and lanes 0..s-1 of the next one. So one new load per 16 positions serves kK taps
// (valignd makes each shifted copy), where the portable loop loads every tap's vector anew, at
// an offset that crosses a cache line: that loop is bound by its loads (40% of peak on a
// 64 -> 2, 75-tap head), this one by its multiply-adds.
// The maskz forms throughout: GCC 12 warns about the plain ones' undefined pass-through operand.
constexpr __mmask16 kAllLanes = 0xFFFF;

template <int kShift>
inline __m512 shifted_lanes(__m512 low, __m512 high) {
  if constexpr (kShift == 0) {
    return low;
  } else {
    return _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(kAllLanes, _mm512_castps_si512(high),
                                                         _mm512_castps_si512(low), kShift));
  }
}

// The sum of v's lanes, halving the vector (GCC 12's _mm512_castps512_ps256 is a plain extract).
inline float lane_sum(__m512 v) {
  const __m512d bits = _mm512_castps_pd(v);
  const __m256 low = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, bits, 0));
  const __m256 high = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, bits, 1));
  const __m256 sum8 = _mm256_add_ps(low, high);
  __m128 sum4 = _mm_add_ps(_mm256_castps256_ps128(sum8), _mm256_extractf128_ps(sum8, 1));
  sum4 = _mm_add_ps(sum4, _mm_movehl_ps(sum4, sum4));
  return _mm_cvtss_f32(_mm_add_ss(sum4, _mm_movehdup_ps(sum4)));
}

// acc[o][s] += grad_out[o] * (x shifted by s) for every output channel o and tap s < kK.
template <int64_t kO, int64_t kK, size_t... kShift>
inline void accumulate_taps(__m512 low, __m512 high, const __m512 (&grad)[kO],
                            __m512 (&acc)[kO][kK], std::index_sequence<kShift...>) {
  (
      [&] {
        const __m512 xs = shifted_lanes<static_cast<int>(kShift)>(low, high);
        for (int64_t o = 0; o < kO; ++o)
          acc[o][kShift] = _mm512_fmadd_ps(grad[o], xs, acc[o][kShift]);
      }(),
      ...);
}

// grad_w[o, c, k] += sum_t gradient[o, t] * padded[c, t + k] for t < positions (a multiple of
// 16); padded rows (extent) are readable to positions + kernel_size + 16.
template <int64_t kO>
void weight_gradient_rotated(const Conv1DGeometry& g, const float* gradient, int64_t positions,
                             const float* padded, int64_t extent, float* grad_w) {
  constexpr int64_t kK = kO <= 2 ? 8 : 4;  // kO * kK accumulators, of 32 vector registers
  for (int64_t c = 0; c < g.in_channels; ++c) {
    const float* x_row = padded + c * extent;
    for (int64_t k0 = 0; k0 < g.kernel_size; k0 += kK) {
      __m512 acc[kO][kK];
      for (int64_t o = 0; o < kO; ++o) {
        for (int64_t s = 0; s < kK; ++s) acc[o][s] = _mm512_setzero_ps();
      }
      __m512 low = _mm512_loadu_ps(x_row + k0);
      for (int64_t t = 0; t < positions; t += 16) {
        const __m512 high = _mm512_loadu_ps(x_row + k0 + t + 16);
        __m512 grad[kO];
        for (int64_t o = 0; o < kO; ++o) grad[o] = _mm512_loadu_ps(gradient + o * positions + t);
        accumulate_taps<kO, kK>(low, high, grad, acc, std::make_index_sequence<kK>());
        low = high;
      }
      for (int64_t o = 0; o < kO; ++o) {
        for (int64_t s = 0; s < kK && k0 + s < g.kernel_size; ++s) {
          grad_w[(o * g.in_channels + c) * g.kernel_size + k0 + s] += lane_sum(acc[o][s]);
        }
      }
    }
  }
}
// The forward loop's rotated form (float, dilation 1): for a block of 64 output positions and
// 16 taps of one input row, five loads where the portable loop makes 64, each across a cache
// line; tap k0 + s of positions [t, t + 16) is lanes s..15 of x[t + k0] and 0..s-1 of the next.
template <int64_t kO, size_t... kShift>
inline void accumulate_block_taps(const __m512 (&x)[5], int64_t remaining,
                                  const StridedWeights<float>& weight, int64_t count, int64_t c,
                                  int64_t k0, __m512 (&sum)[kO][4],
                                  std::index_sequence<kShift...>) {
  (
      [&] {
        if (static_cast<int64_t>(kShift) >= remaining) return;  // past the last tap
        __m512 wv[kO];
        for (int64_t o = 0; o < kO; ++o)
          wv[o] = _mm512_set1_ps(o < count ? weight.at(o, c, k0 + kShift) : 0.0f);
        for (int64_t j = 0; j < 4; ++j) {
          const __m512 xs = shifted_lanes<static_cast<int>(kShift)>(x[j], x[j + 1]);
          for (int64_t o = 0; o < kO; ++o) sum[o][j] = _mm512_fmadd_ps(wv[o], xs, sum[o][j]);
        }
      }(),
      ...);
}

// acc[o][i] += sum_{c, k} weight(o, c, k) * in[c, i + k] for 64 positions i; in rows are
// readable to taps + 79.
template <int64_t kO>
void accumulate_block_rotated(int64_t count, int64_t n_in, int64_t taps, const float* in,
                              int64_t in_ld, const StridedWeights<float>& weight,
                              float (&acc)[kO][64]) {
  __m512 sum[kO][4];
  for (int64_t o = 0; o < kO; ++o) {
    for (int64_t j = 0; j < 4; ++j) sum[o][j] = _mm512_loadu_ps(&acc[o][16 * j]);
  }
  for (int64_t c = 0; c < n_in; ++c) {
    const float* row = in + c * in_ld;
    for (int64_t k0 = 0; k0 < taps; k0 += 16) {
      __m512 x[5];
      for (int64_t j = 0; j < 5; ++j) x[j] = _mm512_loadu_ps(row + k0 + 16 * j);
      accumulate_block_taps<kO>(x, taps - k0, weight, count, c, k0, sum,
                                std::make_index_sequence<16>());
    }
  }
  for (int64_t o = 0; o < kO; ++o) {
    for (int64_t j = 0; j < 4; ++j) _mm512_storeu_ps(&acc[o][16 * j], sum[o][j]);
  }
}
#endif

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
    bool accumulated = false;
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<T, float> && kW == 64) {
      if (dilation == 1) {
        accumulate_block_rotated<kO>(count, n_in, taps, in + t0, in_ld, weight, acc);
        accumulated = true;
      }
    }
#endif
    for (int64_t c = 0; c < n_in && !accumulated; ++c) {
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
  // + vector_lanes: the rotated loop (float, dilation 1) reads one vector past the last tap's.
  const int64_t extent = round_up(g.out_length, block_positions<T>()) +
                         (g.kernel_size - 1) * g.dilation + vector_lanes<T>();
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
  const int64_t extent = round_up(g.length, block_positions<T>()) + reach + vector_lanes<T>();
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
  // + kLanes: the rotated loop reads one vector past the last tap's.
  const int64_t extent = positions + (g.kernel_size - 1) * g.dilation + kLanes;
  T* padded = scratch<T, 0>(g.in_channels * extent);
  padded_rows(x_b, g.in_channels, g.length, g.pad_left, extent, padded);
  T* gradient = scratch<T, 2>(g.out_channels * positions);  // grad_out, zero past L_out
  padded_rows(grad_out_b, g.out_channels, g.out_length, 0, positions, gradient);
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (g.dilation == 1) {
      dispatch_rows(g.out_channels, [&]<int64_t kO>() {
        weight_gradient_rotated<kO>(g, gradient, positions, padded, extent, grad_w);
      });
      return;
    }
  }
#endif
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
