// The screen of explanations' readouts (contracts: kernels/cpu/conv1d_change_screen.h).
#include "kernels/cpu/conv1d_change_screen.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "kernels/cpu/change_blocks.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace strand::kernels::cpu {
namespace {

using change_blocks::BlockColumns;
using change_blocks::kBlockColumns;
using change_blocks::kLanes;
using change_blocks::kVectors;
using change_blocks::tap_columns;
using change_blocks::TapColumns;
#if defined(__AVX512F__)
using change_blocks::lanes;
#endif

// The bound of the bfloat16 estimate's error, per unit of sum |W| |d| over a unit's inputs:
// rounding W and d to bfloat16 (8 significant bits, to nearest) errs by at most 2u + u^2 of
// |W d| (u = 2^-8), and float accumulation over a few hundred products by far less than 1e-4
// of it; 0.008 covers both with room. A bfloat16 denormal (|d| < 2^-126) reads as zero: the
// absolute slack covers it.
constexpr float kErrorPerMagnitude = 0.008F;
constexpr float kErrorSlack = 1e-30F;

// Rounds a float to bfloat16, to nearest even (NaN is not expected in a change).
inline uint32_t to_bfloat16(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits + 0x7FFFU + ((bits >> 16) & 1U)) >> 16;
}

}  // namespace

ChangeScreenTaps pack_change_screen_taps(const float* weight, int64_t out_channels,
                                         int64_t in_channels, int64_t taps) {
  STRAND_CHECK(taps >= 1 && taps <= kMaxChangeScreenTaps && in_channels >= 1 && out_channels >= 1,
               "screen_relu_crossings: 1 to {} taps expected, got a ({}, {}, {}) weight",
               kMaxChangeScreenTaps, out_channels, in_channels, taps);
  ChangeScreenTaps packed;
  packed.out_channels = out_channels;
  packed.in_channels = in_channels;
  packed.taps = taps;
  const int64_t blocks = (out_channels + kChangeConvRows - 1) / kChangeConvRows;
  const int64_t pairs = (in_channels + 1) / 2;
  packed.packed.assign(static_cast<size_t>(blocks * taps * pairs * kChangeConvRows), 0U);
  packed.largest_error_per_norm.assign(static_cast<size_t>(taps), 0.0F);
  for (int64_t o = 0; o < out_channels; ++o) {
    const int64_t block = o / kChangeConvRows, row = o % kChangeConvRows;
    for (int64_t k = 0; k < taps; ++k) {
      float largest = 0.0F;
      for (int64_t c = 0; c < in_channels; ++c) {
        const float w = weight[(o * in_channels + c) * taps + k];
        largest = std::max(largest, std::fabs(w));
        uint32_t& word = packed.packed[static_cast<size_t>(
            ((block * taps + k) * pairs + c / 2) * kChangeConvRows + row)];
        word |= to_bfloat16(w) << (c % 2 == 0 ? 0 : 16);
      }
      packed.largest_error_per_norm[static_cast<size_t>(k)] = std::max(
          packed.largest_error_per_norm[static_cast<size_t>(k)], kErrorPerMagnitude * largest);
    }
  }
  return packed;
}

void pack_change_screen_input(const float* d, int64_t channels, int64_t w_in, uint32_t* pairs,
                              float* norms) {
  std::fill(norms, norms + w_in, 0.0F);
  for (int64_t c = 0; c < channels; c += 2) {
    const float* even = d + c * w_in;
    const float* odd = c + 1 < channels ? d + (c + 1) * w_in : nullptr;
    uint32_t* to = pairs + (c / 2) * w_in;
#pragma omp simd
    for (int64_t j = 0; j < w_in; ++j) {
      const float e = even[j], f = odd != nullptr ? odd[j] : 0.0F;
      to[j] = to_bfloat16(e) | to_bfloat16(f) << 16;
      norms[j] += std::fabs(e) + std::fabs(f);
    }
  }
}

#if defined(__AVX512F__) && defined(__AVX512BF16__)
namespace {

using ScreenAccumulators = __m512[kChangeConvRows][kVectors];

// acc[.][kFirst, kEnd) += one tap's bfloat16 weights (P, 8) times the input pairs at `row`.
template <int kFirst, int kEnd, bool kPrefetch>
inline void screen_tap(ScreenAccumulators& acc, const uint32_t* w, const uint32_t* row,
                       int64_t p_count, int64_t w_in, const __mmask16* masks) {
  for (int64_t p = 0; p < p_count; ++p, row += w_in, w += kChangeConvRows) {
    if constexpr (kPrefetch) {
#pragma GCC unroll 3
      for (int v = kFirst; v < kEnd; ++v) {
        _mm_prefetch(reinterpret_cast<const char*>(row + kBlockColumns + v * kLanes), _MM_HINT_T0);
      }
    }
    __m512bh b[kVectors];
#pragma GCC unroll 3
    for (int v = kFirst; v < kEnd; ++v) {
      b[v] = reinterpret_cast<__m512bh>(_mm512_maskz_loadu_epi32(masks[v], row + v * kLanes));
    }
#pragma GCC unroll 8
    for (int64_t r = 0; r < kChangeConvRows; ++r) {
      const auto weight = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(w[r])));
#pragma GCC unroll 3
      for (int v = kFirst; v < kEnd; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], b[v], weight);
    }
  }
}

template <bool kPrefetch>
[[gnu::always_inline]] inline void screen_reached(int64_t first, int64_t end,
                                                  ScreenAccumulators& acc, const uint32_t* w,
                                                  const uint32_t* row, int64_t p_count,
                                                  int64_t w_in, const __mmask16* masks) {
  change_blocks::with_vector_range(first, end, [&](auto from, auto to) {
    screen_tap<decltype(from)::value, decltype(to)::value, kPrefetch>(acc, w, row, p_count, w_in,
                                                                      masks);
  });
}

struct ScreenPlan {
  const uint32_t* row;
  int64_t tap, first, end;
  __mmask16 masks[kVectors];
};

// Rows [o0, o0 + 8) of block b: which units the estimate leaves undecided. A unit is decided
// when r + estimate lies beyond the bound on r's side of zero: with r <= 0 the sum's sign is
// flipped, so both cases read "flipped sum - bound > 0".
[[gnu::always_inline]] inline void screen_block_units(
    const ScreenAccumulators& acc, const ChangeScreenTaps& taps, const ChangeScreenWindow& window,
    const float* bounds, int64_t o0, const BlockColumns& b, std::vector<int32_t>& undecided) {
  const int64_t rows = std::min(kChangeConvRows, taps.out_channels - o0);
  const __m512 zero = _mm512_setzero_ps();
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000U));
#pragma GCC unroll 3
  for (int64_t v = 0; v < kVectors; ++v) {
    const __mmask16 keep = lanes(b.lo - v * kLanes, b.hi - v * kLanes);
    if (keep == 0) continue;
    const int64_t j = b.j0 + v * kLanes;
    const __m512 bound = _mm512_maskz_loadu_ps(keep, bounds + j);
    __mmask16 open[kChangeConvRows];
    uint32_t any = 0;
#pragma GCC unroll 8
    for (int64_t r = 0; r < kChangeConvRows; ++r) {
      if (r >= rows) break;
      const __m512 a =
          _mm512_maskz_loadu_ps(keep, window.reference + (o0 + r) * window.reference_stride + j);
      const __mmask16 off = _mm512_cmp_ps_mask(a, zero, _CMP_LE_OQ);
      const __m512 s = _mm512_add_ps(a, acc[r][v]);
      const __m512 flipped = _mm512_castsi512_ps(
          _mm512_mask_xor_epi32(_mm512_castps_si512(s), off, _mm512_castps_si512(s), sign));
      open[r] = _mm512_mask_cmp_ps_mask(keep, _mm512_sub_ps(flipped, bound), zero, _CMP_LE_OQ);
      any |= open[r];
    }
    if (any == 0) continue;
    for (int64_t r = 0; r < rows; ++r) {
      auto lanes_open = static_cast<uint32_t>(open[r]);
      while (lanes_open != 0) {
        const int lane = __builtin_ctz(lanes_open);
        lanes_open &= lanes_open - 1;
        undecided.push_back(static_cast<int32_t>((o0 + r) * window.w_out + j + lane));
      }
    }
  }
}

// Rows [o0, o0 + 8) and the columns of block b: the estimate in registers over every planned
// tap and input pair, then screened.
void screen_block(const ChangeScreenTaps& taps, const uint32_t* a, const ChangeScreenWindow& window,
                  const float* bounds, int64_t o0, const BlockColumns& b, const ScreenPlan* plans,
                  int64_t plan_count, std::vector<int32_t>& undecided) {
  const int64_t p_count = (taps.in_channels + 1) / 2;
  ScreenAccumulators acc;
#pragma GCC unroll 8
  for (int64_t r = 0; r < kChangeConvRows; ++r) {
#pragma GCC unroll 3
    for (int64_t v = 0; v < kVectors; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < plan_count; ++p) {
    const ScreenPlan& plan = plans[p];
    const uint32_t* w = a + plan.tap * p_count * kChangeConvRows;
    if (o0 == 0) {
      screen_reached<true>(plan.first, plan.end, acc, w, plan.row, p_count, window.w_in,
                           plan.masks);
    } else {
      screen_reached<false>(plan.first, plan.end, acc, w, plan.row, p_count, window.w_in,
                            plan.masks);
    }
  }
  screen_block_units(acc, taps, window, bounds, o0, b, undecided);
}

}  // namespace
#endif

void screen_relu_crossings(const ChangeScreenTaps& taps, const ChangeScreenWindow& window,
                           std::vector<int32_t>& undecided) {
#if defined(__AVX512F__) && defined(__AVX512BF16__)
  const int64_t o_count = taps.out_channels, p_count = (taps.in_channels + 1) / 2;
  const int64_t block_words = taps.taps * p_count * kChangeConvRows;
  // The bound of the estimate's error per output column, for every output channel at once (the
  // largest channel's weights): sum over taps of that bound per unit of the input column's norm.
  thread_local std::vector<float> bounds;
  bounds.assign(static_cast<size_t>(window.w_out), kErrorSlack);
  for (int64_t k = 0; k < taps.taps; ++k) {
    const int64_t shift = window.shift0 - k * window.dilation;  // output j reads input j - shift
    const float error = taps.largest_error_per_norm[static_cast<size_t>(k)];
    const int64_t lo = std::max<int64_t>(0, shift),
                  hi = std::min(window.w_out, window.w_in + shift);
    for (int64_t j = lo; j < hi; ++j)
      bounds[static_cast<size_t>(j)] += error * window.norms[j - shift];
  }
  ScreenPlan plans[kMaxChangeScreenTaps];
  const int64_t origin = change_blocks::vector_grid_origin(
      taps.taps, window.dilation, window.shift0, window.w_in, window.w_out);
  for (int64_t j0 = origin; j0 < window.w_out; j0 += kBlockColumns) {
    const BlockColumns b{j0, std::max<int64_t>(0, -j0), std::min(kBlockColumns, window.w_out - j0)};
    int64_t plan_count = 0;
    for (int64_t k = 0; k < taps.taps; ++k) {
      const TapColumns t = tap_columns(b, window.shift0 - k * window.dilation, window.w_in);
      if (t.hi <= t.lo) continue;
      const int64_t first = t.lo / kLanes, end = (t.hi + kLanes - 1) / kLanes;
      plans[plan_count++] = {window.pairs + t.first_input,
                             k,
                             first,
                             end,
                             {lanes(t.lo, t.hi), lanes(t.lo - kLanes, t.hi - kLanes),
                              lanes(t.lo - 2 * kLanes, t.hi - 2 * kLanes)}};
    }
    for (int64_t o0 = 0; o0 < o_count; o0 += kChangeConvRows) {
      screen_block(taps, taps.packed.data() + (o0 / kChangeConvRows) * block_words, window,
                   bounds.data(), o0, b, plans, plan_count, undecided);
    }
  }
#else
  (void)window;
  (void)undecided;
  STRAND_CHECK(false,
               "screen_relu_crossings: this build has no AVX-512 BF16 (a {} x {} x {} "
               "convolution); check kChangeScreenAvailable before calling",
               taps.out_channels, taps.in_channels, taps.taps);
#endif
}

}  // namespace strand::kernels::cpu
