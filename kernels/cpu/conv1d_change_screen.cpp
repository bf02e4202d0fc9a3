// The screen of explanations' readouts (contracts: kernels/cpu/conv1d_change_screen.h).
#include "kernels/cpu/conv1d_change_screen.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/error.h"
#include "kernels/cpu/change_blocks.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

// Which estimate this build runs: 1 bfloat16 (AVX-512 BF16), 2 16-bit integers (AVX2 with FMA,
// no AVX-512), 0 none (kChangeScreenAvailable false).
#if defined(__AVX512F__) && defined(__AVX512BF16__)
#define STRAND_SCREEN_KIND 1
#elif !defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
#define STRAND_SCREEN_KIND 2
#else
#define STRAND_SCREEN_KIND 0
#endif

namespace strand::kernels::cpu {
namespace {

using change_blocks::BlockColumns;
using change_blocks::kBlockColumns;
using change_blocks::kLanes;
using change_blocks::kVectors;
using change_blocks::tap_columns;
using change_blocks::TapColumns;
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
using float_vectors::lanes;
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

namespace {

// The word of block `block`, tap k, input channel c's pair, row `row`.
size_t packed_word(const ChangeScreenTaps& packed, int64_t block, int64_t k, int64_t c,
                   int64_t row) {
  const int64_t pairs = (packed.in_channels + 1) / 2;
  return static_cast<size_t>(((block * packed.taps + k) * pairs + c / 2) * kChangeScreenRows + row);
}

void pack_bfloat16_taps(const float* weight, ChangeScreenTaps& packed) {
  const int64_t in_channels = packed.in_channels, taps = packed.taps;
  for (int64_t o = 0; o < packed.out_channels; ++o) {
    for (int64_t k = 0; k < taps; ++k) {
      float largest = 0.0F;
      for (int64_t c = 0; c < in_channels; ++c) {
        const float w = weight[(o * in_channels + c) * taps + k];
        largest = std::max(largest, std::fabs(w));
        packed.packed[packed_word(packed, o / kChangeScreenRows, k, c, o % kChangeScreenRows)] |=
            to_bfloat16(w) << (c % 2 == 0 ? 0 : 16);
      }
      packed.largest_error_per_norm[static_cast<size_t>(k)] = std::max(
          packed.largest_error_per_norm[static_cast<size_t>(k)], kErrorPerMagnitude * largest);
    }
  }
}

// The integer estimate E = sum Wq dq * weight_step * input_step of D = sum W d over a unit's n
// <= C K inputs, with |W - Wq weight_step| <= hw and |d - dq input_step| <= hd = 0.51
// input_step (round to nearest, plus the float rounding of d / input_step):
//   |D - E| <= hd sum |W| + hw sum |d| + n hw hd,
// and E reaches float through three roundings (the sum's conversion, the scales' product and
// the product), each 2^-24 of |E| <= (max |W| + hw) (sum |d| + n hd). sum |W| over a unit's
// inputs is at most the largest row's L1 norm; sum |d| is the norms of the columns it reads.
// The bound's own float sums (the norms over C channels, K taps) and the screen's a + E may
// round it down by (C + K + 2) 2^-24 of itself: a factor covers them.
void pack_integer_taps(const float* weight, ChangeScreenTaps& packed) {
  const int64_t in_channels = packed.in_channels, taps = packed.taps;
  const int64_t n = in_channels * taps;
  // |sum Wq dq| <= n q^2 < 2^31 with q the largest integer of either operand.
  const auto q = static_cast<int32_t>(
      std::min(32767.0, std::floor(std::sqrt(2147483647.0 / static_cast<double>(n)))));
  double largest = 0.0, largest_row = 0.0;
  for (int64_t o = 0; o < packed.out_channels; ++o) {
    double row = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      largest = std::max(largest, std::fabs(static_cast<double>(weight[o * n + i])));
      row += std::fabs(static_cast<double>(weight[o * n + i]));
    }
    largest_row = std::max(largest_row, row);
  }
  const float step = largest > 0.0 ? static_cast<float>(largest / q) : 1.0F;
  double hw = 0.0;
  for (int64_t o = 0; o < packed.out_channels; ++o) {
    for (int64_t c = 0; c < in_channels; ++c) {
      for (int64_t k = 0; k < taps; ++k) {
        const double w = weight[(o * in_channels + c) * taps + k];
        const auto bound = static_cast<double>(q);
        const double integer = std::clamp(std::nearbyint(w / step), -bound, bound);
        hw = std::max(hw, std::fabs(w - integer * step));
        const auto bits =
            static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(integer)));
        packed.packed[packed_word(packed, o / kChangeScreenRows, k, c, o % kChangeScreenRows)] |=
            bits << (c % 2 == 0 ? 0 : 16);
      }
    }
  }
  const double rounding = 0x1p-22 * (largest + hw);  // E's conversion to float, per |d|
  const double cover = 1.0 + static_cast<double>(in_channels + taps + 2) * 0x1p-23 + 0x1p-20;
  packed.weight_step = step;
  packed.largest_input = q;
  packed.error_per_input_step = static_cast<float>(
      0.51 * (largest_row + static_cast<double>(n) * (hw + rounding)) * cover * (1.0 + 0x1p-20));
  std::fill(packed.largest_error_per_norm.begin(), packed.largest_error_per_norm.end(),
            static_cast<float>((hw + rounding) * cover * (1.0 + 0x1p-20)));
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
  const int64_t blocks = (out_channels + kChangeScreenRows - 1) / kChangeScreenRows;
  const int64_t pairs = (in_channels + 1) / 2;
  packed.packed.assign(static_cast<size_t>(blocks * taps * pairs * kChangeScreenRows), 0U);
  packed.largest_error_per_norm.assign(static_cast<size_t>(taps), 0.0F);
  if (kChangeScreenInIntegers) {
    pack_integer_taps(weight, packed);
  } else {
    pack_bfloat16_taps(weight, packed);
  }
  return packed;
}

namespace {

float pack_bfloat16_input(const float* d, int64_t channels, int64_t w_in, uint32_t* pairs,
                          float* norms) {
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
  return 1.0F;
}

// A float as a 16-bit integer of `inverse_step` (|value| * inverse_step below 2^15 - 1), in
// the low half of a word.
inline uint32_t to_integer16(float value, float inverse_step) {
  return static_cast<uint16_t>(static_cast<int16_t>(std::nearbyint(value * inverse_step)));
}

// The largest |d| over channels x w_in values, with the norms' column sums of |d| added on the
// way (one pass over d; NaN where some |d| is NaN or infinite).
float largest_and_norms(const float* d, int64_t channels, int64_t w_in, float* norms) {
  float largest = 0.0F;
  for (int64_t c = 0; c < channels; ++c) {
    const float* row = d + c * w_in;
    int64_t j = 0;
#if STRAND_SCREEN_KIND == 2
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    __m256 most = _mm256_setzero_ps();
    for (; j + 8 <= w_in; j += 8) {
      const __m256 x = _mm256_and_ps(_mm256_loadu_ps(row + j), magnitude);
      most = _mm256_max_ps(most, x);
      _mm256_storeu_ps(norms + j, _mm256_add_ps(_mm256_loadu_ps(norms + j), x));
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, most);
    for (const float lane : lanes) largest = std::max(largest, lane);
#endif
    for (; j < w_in; ++j) {
      largest = std::max(largest, std::fabs(row[j]));
      norms[j] += std::fabs(row[j]);
    }
  }
  // max drops NaN: the norms keep it (and an infinity).
  bool finite = std::isfinite(largest);
  for (int64_t j = 0; j < w_in; ++j) finite = finite && std::isfinite(norms[j]);
  return finite ? largest : std::numeric_limits<float>::quiet_NaN();
}

float pack_integer_input(int32_t largest_input, const float* d, int64_t channels, int64_t w_in,
                         uint32_t* pairs, float* norms) {
  const float largest = largest_and_norms(d, channels, w_in, norms);
  if (!std::isfinite(largest)) return std::numeric_limits<float>::quiet_NaN();
  const float step = largest > 0.0F ? largest / static_cast<float>(largest_input) : 1.0F;
  const float inverse = 1.0F / step;
  if (!(step >= std::numeric_limits<float>::min()) || !std::isfinite(inverse)) {
    return std::numeric_limits<float>::quiet_NaN();
  }
  for (int64_t c = 0; c < channels; c += 2) {
    const float* even = d + c * w_in;
    const float* odd = c + 1 < channels ? d + (c + 1) * w_in : nullptr;
    uint32_t* to = pairs + (c / 2) * w_in;
    int64_t j = 0;
#if STRAND_SCREEN_KIND == 2
    // cvtps rounds to nearest even, as nearbyint does in the default rounding mode.
    const __m256 scale = _mm256_set1_ps(inverse);
    const __m256i low = _mm256_set1_epi32(0xFFFF);
    for (; j + 8 <= w_in; j += 8) {
      const __m256 e = _mm256_loadu_ps(even + j);
      const __m256 f = odd != nullptr ? _mm256_loadu_ps(odd + j) : _mm256_setzero_ps();
      const __m256i words =
          _mm256_or_si256(_mm256_and_si256(_mm256_cvtps_epi32(_mm256_mul_ps(e, scale)), low),
                          _mm256_slli_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(f, scale)), 16));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + j), words);
    }
#endif
    for (; j < w_in; ++j) {
      const float f = odd != nullptr ? odd[j] : 0.0F;
      to[j] = to_integer16(even[j], inverse) | to_integer16(f, inverse) << 16;
    }
  }
  return step;
}

}  // namespace

float pack_change_screen_input(const ChangeScreenTaps& taps, const float* d, int64_t w_in,
                               uint32_t* pairs, float* norms) {
  std::fill(norms, norms + w_in, 0.0F);
  if (kChangeScreenInIntegers) {
    return pack_integer_input(taps.largest_input, d, taps.in_channels, w_in, pairs, norms);
  }
  return pack_bfloat16_input(d, taps.in_channels, w_in, pairs, norms);
}

#if STRAND_SCREEN_KIND == 1
namespace {

using LaneMask = __mmask16;

using ScreenAccumulators = __m512[kChangeScreenRows][kVectors];

// acc[.][kFirst, kEnd) += one tap's bfloat16 weights (P, 8) times the input pairs at `row`.
template <int kFirst, int kEnd, bool kPrefetch>
inline void screen_tap(ScreenAccumulators& acc, const uint32_t* w, const uint32_t* row,
                       int64_t p_count, int64_t w_in, const __mmask16* masks) {
  for (int64_t p = 0; p < p_count; ++p, row += w_in, w += kChangeScreenRows) {
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
    for (int64_t r = 0; r < kChangeScreenRows; ++r) {
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
  LaneMask masks[kVectors];
};

// Rows [o0, o0 + 8) of block b: which units the estimate leaves undecided. A unit is decided
// when r + estimate lies beyond the bound on r's side of zero: with r <= 0 the sum's sign is
// flipped, so both cases read "flipped sum - bound > 0".
[[gnu::always_inline]] inline void screen_block_units(
    const ScreenAccumulators& acc, const ChangeScreenTaps& taps, const ChangeScreenWindow& window,
    const float* bounds, int64_t o0, const BlockColumns& b, std::vector<int32_t>& undecided) {
  const int64_t rows = std::min(kChangeScreenRows, taps.out_channels - o0);
  const __m512 zero = _mm512_setzero_ps();
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000U));
#pragma GCC unroll 3
  for (int64_t v = 0; v < kVectors; ++v) {
    const __mmask16 keep = lanes(b.lo - v * kLanes, b.hi - v * kLanes);
    if (keep == 0) continue;
    const int64_t j = b.j0 + v * kLanes;
    const __m512 bound = _mm512_maskz_loadu_ps(keep, bounds + j);
    __mmask16 open[kChangeScreenRows];
    uint32_t any = 0;
#pragma GCC unroll 8
    for (int64_t r = 0; r < kChangeScreenRows; ++r) {
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
  for (int64_t r = 0; r < kChangeScreenRows; ++r) {
#pragma GCC unroll 3
    for (int64_t v = 0; v < kVectors; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < plan_count; ++p) {
    const ScreenPlan& plan = plans[p];
    const uint32_t* w = a + plan.tap * p_count * kChangeScreenRows;
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
#elif STRAND_SCREEN_KIND == 2
namespace {

using LaneMask = __m256i;
using ScreenAccumulators = __m256i[kChangeScreenRows][kVectors];

// acc[.][kFirst, kEnd) += one tap's integer weights (P, 3) times the input pairs at `row`:
// vpmaddwd sums each lane's two channel products into 32 bits. kWhole: every vector the tap
// reaches lies inside d (plain loads; the others mask theirs).
template <int kFirst, int kEnd, bool kWhole, bool kPrefetch>
inline void screen_tap(ScreenAccumulators& acc, const uint32_t* w, const uint32_t* row,
                       int64_t p_count, int64_t w_in, const LaneMask* masks) {
  for (int64_t p = 0; p < p_count; ++p, row += w_in, w += kChangeScreenRows) {
    if constexpr (kPrefetch) {
#pragma GCC unroll 3
      for (int v = kFirst; v < kEnd; ++v) {
        _mm_prefetch(reinterpret_cast<const char*>(row + kBlockColumns + v * kLanes), _MM_HINT_T0);
      }
    }
    __m256i b[kVectors];
#pragma GCC unroll 3
    for (int v = kFirst; v < kEnd; ++v) {
      const auto* at = reinterpret_cast<const int*>(row + v * kLanes);
      b[v] = kWhole ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at))
                    : _mm256_maskload_epi32(at, masks[v]);
    }
#pragma GCC unroll 3
    for (int64_t r = 0; r < kChangeScreenRows; ++r) {
      const __m256i weight = _mm256_set1_epi32(static_cast<int>(w[r]));
#pragma GCC unroll 3
      for (int v = kFirst; v < kEnd; ++v) {
        acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(b[v], weight));
      }
    }
  }
}

struct ScreenPlan {
  const uint32_t* row;
  int64_t tap, first, end;
  LaneMask masks[kVectors];
  bool whole;
};

template <bool kPrefetch>
[[gnu::always_inline]] inline void screen_reached(const ScreenPlan& plan, ScreenAccumulators& acc,
                                                  const uint32_t* w, int64_t p_count,
                                                  int64_t w_in) {
  change_blocks::with_vector_range(plan.first, plan.end, [&](auto from, auto to) {
    constexpr int kFirst = decltype(from)::value, kEnd = decltype(to)::value;
    if (plan.whole) {
      screen_tap<kFirst, kEnd, true, kPrefetch>(acc, w, plan.row, p_count, w_in, plan.masks);
    } else {
      screen_tap<kFirst, kEnd, false, kPrefetch>(acc, w, plan.row, p_count, w_in, plan.masks);
    }
  });
}

// Rows [o0, o0 + 3) of block b: which units the estimate leaves undecided, as in the bfloat16
// screen ("flipped sum - bound > 0" decides a unit on either side of zero).
[[gnu::always_inline]] inline void screen_block_units(
    const ScreenAccumulators& acc, const ChangeScreenTaps& taps, const ChangeScreenWindow& window,
    const float* bounds, int64_t o0, const BlockColumns& b, std::vector<int32_t>& undecided) {
  const int64_t rows = std::min(kChangeScreenRows, taps.out_channels - o0);
  const __m256 zero = _mm256_setzero_ps();
  const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(0x80000000U)));
  const __m256 scale = _mm256_set1_ps(taps.weight_step * window.input_step);
#pragma GCC unroll 3
  for (int64_t v = 0; v < kVectors; ++v) {
    const __m256i keep = lanes(b.lo - v * kLanes, b.hi - v * kLanes);
    if (float_vectors::none(keep)) continue;
    const int64_t j = b.j0 + v * kLanes;
    // Whole vectors (all but a window's first and last) load plainly.
    const bool whole = float_vectors::full(keep);
    const auto load = [&](const float* p) {
      return whole ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, keep);
    };
    const __m256 bound = load(bounds + j);
#pragma GCC unroll 3
    for (int64_t r = 0; r < kChangeScreenRows; ++r) {
      if (r >= rows) break;
      const __m256 a = load(window.reference + (o0 + r) * window.reference_stride + j);
      const __m256 off = _mm256_cmp_ps(a, zero, _CMP_LE_OQ);
      const __m256 s = _mm256_add_ps(a, _mm256_mul_ps(_mm256_cvtepi32_ps(acc[r][v]), scale));
      const __m256 flipped = _mm256_xor_ps(s, _mm256_and_ps(off, sign));
      const __m256 undecided_lanes =
          _mm256_and_ps(_mm256_castsi256_ps(keep),
                        _mm256_cmp_ps(_mm256_sub_ps(flipped, bound), zero, _CMP_LE_OQ));
      auto lanes_open = static_cast<uint32_t>(_mm256_movemask_ps(undecided_lanes));
      while (lanes_open != 0) {
        const int lane = __builtin_ctz(lanes_open);
        lanes_open &= lanes_open - 1;
        undecided.push_back(static_cast<int32_t>((o0 + r) * window.w_out + j + lane));
      }
    }
  }
}

// Rows [o0, o0 + 3) and the columns of block b: the estimate in registers over every planned
// tap and input pair, then screened.
void screen_block(const ChangeScreenTaps& taps, const uint32_t* a, const ChangeScreenWindow& window,
                  const float* bounds, int64_t o0, const BlockColumns& b, const ScreenPlan* plans,
                  int64_t plan_count, std::vector<int32_t>& undecided) {
  const int64_t p_count = (taps.in_channels + 1) / 2;
  ScreenAccumulators acc;
#pragma GCC unroll 3
  for (int64_t r = 0; r < kChangeScreenRows; ++r) {
#pragma GCC unroll 3
    for (int64_t v = 0; v < kVectors; ++v) acc[r][v] = _mm256_setzero_si256();
  }
  for (int64_t p = 0; p < plan_count; ++p) {
    const ScreenPlan& plan = plans[p];
    const uint32_t* w = a + plan.tap * p_count * kChangeScreenRows;
    if (o0 == 0) {
      screen_reached<true>(plan, acc, w, p_count, window.w_in);
    } else {
      screen_reached<false>(plan, acc, w, p_count, window.w_in);
    }
  }
  screen_block_units(acc, taps, window, bounds, o0, b, undecided);
}

}  // namespace
#endif

#if STRAND_SCREEN_KIND != 0
namespace {

// Every unit undecided: a change the integer screen cannot scale (not finite, or tiny).
void leave_all_undecided(const ChangeScreenTaps& taps, const ChangeScreenWindow& window,
                         std::vector<int32_t>& undecided) {
  for (int64_t u = 0; u < taps.out_channels * window.w_out; ++u) {
    undecided.push_back(static_cast<int32_t>(u));
  }
}

// The plan of tap t's columns in a block: where its rows start and which vectors it reaches.
ScreenPlan plan_of(const ChangeScreenWindow& window, const TapColumns& t, int64_t k) {
  const int64_t first = t.lo / kLanes, end = (t.hi + kLanes - 1) / kLanes;
  ScreenPlan plan{};
  plan.row = window.pairs + t.first_input;
  plan.tap = k;
  plan.first = first;
  plan.end = end;
  plan.masks[0] = lanes(t.lo, t.hi);
  plan.masks[1] = lanes(t.lo - kLanes, t.hi - kLanes);
  plan.masks[2] = lanes(t.lo - 2 * kLanes, t.hi - 2 * kLanes);
#if STRAND_SCREEN_KIND == 2
  plan.whole = t.lo == first * kLanes && t.hi == end * kLanes;
#endif
  return plan;
}

}  // namespace
#endif

void screen_relu_crossings(const ChangeScreenTaps& taps, const ChangeScreenWindow& window,
                           std::vector<int32_t>& undecided) {
#if STRAND_SCREEN_KIND != 0
  if (!std::isfinite(window.input_step)) {
    leave_all_undecided(taps, window, undecided);
    return;
  }
  const int64_t o_count = taps.out_channels, p_count = (taps.in_channels + 1) / 2;
  const int64_t block_words = taps.taps * p_count * kChangeScreenRows;
  // The bound of the estimate's error per output column, for every output channel at once (the
  // largest channel's weights): sum over taps of that bound per unit of the input column's norm.
  thread_local std::vector<float> bounds;
  // (Integers: plus the part of the input's rounding, the same for every column.)
  bounds.assign(static_cast<size_t>(window.w_out),
                kErrorSlack + taps.error_per_input_step * window.input_step);
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
      plans[plan_count++] = plan_of(window, t, k);
    }
    for (int64_t o0 = 0; o0 < o_count; o0 += kChangeScreenRows) {
      screen_block(taps, taps.packed.data() + (o0 / kChangeScreenRows) * block_words, window,
                   bounds.data(), o0, b, plans, plan_count, undecided);
    }
  }
#else
  (void)window;
  (void)undecided;
  STRAND_CHECK(
      false,
      "screen_relu_crossings: this build has neither AVX-512 BF16 nor AVX2 (a {} x {} x {} "
      "convolution); check kChangeScreenAvailable before calling",
      taps.out_channels, taps.in_channels, taps.taps);
#endif
}

}  // namespace strand::kernels::cpu
