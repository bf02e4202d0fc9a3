// 1-D pooling CPU kernels: the readable oracles, and the fast versions (forward passes
// vectorised across output positions with AVX-512 or AVX2 gathers) (contracts:
// kernels/cpu/pooling.h).
#include "kernels/cpu/pooling.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernels/cpu/strided_loop.h"
#include "kernels/pooling_math.h"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace strand::kernels::cpu {
namespace {

// ---- One window at a time: the oracles' loops, also the fast kernels' cut-short windows ----

template <typename T>
void max_window(const Pool1DGeometry& g, const T* row, int64_t t, T* out, int64_t* argmax) {
  const int64_t best = window_argmax(g, row, t);
  out[t] = row[best];
  argmax[t] = best;
}

template <typename T>
void avg_window(const Pool1DGeometry& g, const T* row, int64_t t, T* out) {
  out[t] = window_mean(g, row, t);
}

// ---- Vectorised across outputs ----------------------------------------------------------

// The outputs [0, full) whose windows lie wholly inside the row; later ones (ceil_mode) are cut
// short by the row's end.
int64_t full_windows(const Pool1DGeometry& g) {
  if (g.length < g.kernel) return 0;
  return std::min(g.out_length, (g.length - g.kernel) / g.stride + 1);
}

#if defined(__AVX512F__)
// 16 consecutive outputs at a time: tap j of each of their windows is one gather (windows are
// strided, so contiguous loads would need a different shuffle for every stride). Positions are
// int32 lanes (the callers check the row length). GCC does not vectorise the scalar loop (its
// compare-and-select on float keys with integer payloads stays a branch), hence intrinsics.
struct WindowLanes {
  __mmask16 valid;
  __m512i start;  // the first position of each lane's window
};
inline WindowLanes window_lanes(const Pool1DGeometry& g, int64_t t0, int64_t full) {
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const int64_t count = std::min<int64_t>(full - t0, 16);
  const auto valid = static_cast<__mmask16>((1u << count) - 1u);
  const __m512i t = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(t0)), lane);
  return {valid, _mm512_mullo_epi32(t, _mm512_set1_epi32(static_cast<int32_t>(g.stride)))};
}

void max_full_windows_avx512(const Pool1DGeometry& g, int64_t full, const float* row, float* out,
                             int64_t* argmax) {
  for (int64_t t0 = 0; t0 < full; t0 += 16) {
    const WindowLanes lanes = window_lanes(g, t0, full);
    __m512 best = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes.valid, lanes.start, row, 4);
    __m512i best_p = lanes.start;
    for (int64_t j = 1; j < g.kernel; ++j) {
      const __m512i p = _mm512_add_epi32(lanes.start, _mm512_set1_epi32(static_cast<int32_t>(j)));
      const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes.valid, p, row, 4);
      // The oracle's rule: a later value wins when larger or NaN, unless the best is NaN.
      const __mmask16 v_nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      const __mmask16 best_nan = _mm512_cmp_ps_mask(best, best, _CMP_UNORD_Q);
      const __mmask16 take = _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ) | (v_nan & ~best_nan);
      best = _mm512_mask_blend_ps(take, best, v);
      best_p = _mm512_mask_blend_epi32(take, best_p, p);
    }
    _mm512_mask_storeu_ps(out + t0, lanes.valid, best);
    // Widened to int64 half by half (the maskz forms: GCC 12 warns about the plain ones' undefined
    // pass-through operand).
    constexpr __mmask8 kAll = 0xFF;
    const __m256i low = _mm512_maskz_extracti64x4_epi64(kAll, best_p, 0);
    const __m256i high = _mm512_maskz_extracti64x4_epi64(kAll, best_p, 1);
    _mm512_mask_storeu_epi64(argmax + t0, static_cast<__mmask8>(lanes.valid),
                             _mm512_maskz_cvtepi32_epi64(kAll, low));
    _mm512_mask_storeu_epi64(argmax + t0 + 8, static_cast<__mmask8>(lanes.valid >> 8),
                             _mm512_maskz_cvtepi32_epi64(kAll, high));
  }
}

void avg_full_windows_avx512(const Pool1DGeometry& g, int64_t full, const float* row, float* out) {
  const __m512 count = _mm512_set1_ps(static_cast<float>(g.kernel));
  for (int64_t t0 = 0; t0 < full; t0 += 16) {
    const WindowLanes lanes = window_lanes(g, t0, full);
    __m512 total = _mm512_setzero_ps();  // summed in the oracle's order, from zero
    for (int64_t j = 0; j < g.kernel; ++j) {
      const __m512i p = _mm512_add_epi32(lanes.start, _mm512_set1_epi32(static_cast<int32_t>(j)));
      total = _mm512_add_ps(total,
                            _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes.valid, p, row, 4));
    }
    _mm512_mask_storeu_ps(out + t0, lanes.valid, _mm512_div_ps(total, count));
  }
}

#elif defined(__AVX2__)
// As the AVX-512 kernels above, 8 outputs at a time, the lane masks as vectors of all-ones lanes.
struct WindowLanes {
  int64_t count;  // valid lanes [0, count)
  __m256i valid;
  __m256i start;  // the first position of each lane's window
};
inline WindowLanes window_lanes(const Pool1DGeometry& g, int64_t t0, int64_t full) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int64_t count = std::min<int64_t>(full - t0, 8);
  const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(count)), lane);
  const __m256i t = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int32_t>(t0)), lane);
  return {count, valid, _mm256_mullo_epi32(t, _mm256_set1_epi32(static_cast<int32_t>(g.stride)))};
}

// Lanes outside `valid` are not read (their positions may lie past the row).
inline __m256 gather_lanes(const float* row, __m256i p, __m256i valid) {
  return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), row, p, _mm256_castsi256_ps(valid), 4);
}

void max_full_windows_avx2(const Pool1DGeometry& g, int64_t full, const float* row, float* out,
                           int64_t* argmax) {
  for (int64_t t0 = 0; t0 < full; t0 += 8) {
    const WindowLanes lanes = window_lanes(g, t0, full);
    __m256 best = gather_lanes(row, lanes.start, lanes.valid);
    __m256i best_p = lanes.start;
    for (int64_t j = 1; j < g.kernel; ++j) {
      const __m256i p = _mm256_add_epi32(lanes.start, _mm256_set1_epi32(static_cast<int32_t>(j)));
      const __m256 v = gather_lanes(row, p, lanes.valid);
      // The oracle's rule: a later value wins when larger or NaN, unless the best is NaN.
      const __m256 v_nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
      const __m256 best_nan = _mm256_cmp_ps(best, best, _CMP_UNORD_Q);
      const __m256 take =
          _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_andnot_ps(best_nan, v_nan));
      best = _mm256_blendv_ps(best, v, take);
      best_p = _mm256_castps_si256(
          _mm256_blendv_ps(_mm256_castsi256_ps(best_p), _mm256_castsi256_ps(p), take));
    }
    const __m256i low = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(best_p));
    const __m256i high = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(best_p, 1));
    if (lanes.count == 8) {
      _mm256_storeu_ps(out + t0, best);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(argmax + t0), low);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(argmax + t0 + 4), high);
    } else {  // the row's last outputs
      alignas(32) float values[8];
      alignas(32) int64_t positions[8];
      _mm256_store_ps(values, best);
      _mm256_store_si256(reinterpret_cast<__m256i*>(positions), low);
      _mm256_store_si256(reinterpret_cast<__m256i*>(positions + 4), high);
      std::copy_n(values, lanes.count, out + t0);
      std::copy_n(positions, lanes.count, argmax + t0);
    }
  }
}

void avg_full_windows_avx2(const Pool1DGeometry& g, int64_t full, const float* row, float* out) {
  const __m256 count = _mm256_set1_ps(static_cast<float>(g.kernel));
  for (int64_t t0 = 0; t0 < full; t0 += 8) {
    const WindowLanes lanes = window_lanes(g, t0, full);
    __m256 total = _mm256_setzero_ps();  // summed in the oracle's order, from zero
    for (int64_t j = 0; j < g.kernel; ++j) {
      const __m256i p = _mm256_add_epi32(lanes.start, _mm256_set1_epi32(static_cast<int32_t>(j)));
      total = _mm256_add_ps(total, gather_lanes(row, p, lanes.valid));
    }
    const __m256 mean = _mm256_div_ps(total, count);
    if (lanes.count == 8) {
      _mm256_storeu_ps(out + t0, mean);
    } else {
      alignas(32) float values[8];
      _mm256_store_ps(values, mean);
      std::copy_n(values, lanes.count, out + t0);
    }
  }
}
#endif

#if defined(__AVX512F__) || defined(__AVX2__)
// The gathers address a row with int32 positions.
bool fits_int32_lanes(const Pool1DGeometry& g) {
  return g.length <= std::numeric_limits<int32_t>::max();
}
#endif

// The full windows of one row; float rows vectorised where AVX-512 or AVX2 is available.
template <typename T>
void max_full_windows(const Pool1DGeometry& g, int64_t full, const T* row, T* out,
                      int64_t* argmax) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (fits_int32_lanes(g)) return max_full_windows_avx512(g, full, row, out, argmax);
  }
#elif defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    if (fits_int32_lanes(g)) return max_full_windows_avx2(g, full, row, out, argmax);
  }
#endif
  for (int64_t t = 0; t < full; ++t) max_window(g, row, t, out, argmax);
}

template <typename T>
void avg_full_windows(const Pool1DGeometry& g, int64_t full, const T* row, T* out) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (fits_int32_lanes(g)) return avg_full_windows_avx512(g, full, row, out);
  }
#elif defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    if (fits_int32_lanes(g)) return avg_full_windows_avx2(g, full, row, out);
  }
#endif
  for (int64_t t = 0; t < full; ++t) avg_window(g, row, t, out);
}

}  // namespace

// ---- Oracles ------------------------------------------------------------------------------

template <typename T>
void max_pool1d_forward_reference(const Pool1DGeometry& g, const T* x, T* out, int64_t* argmax) {
  for (int64_t r = 0; r < g.rows; ++r) {
    for (int64_t t = 0; t < g.out_length; ++t) {
      max_window(g, x + r * g.length, t, out + r * g.out_length, argmax + r * g.out_length);
    }
  }
}

template <typename T>
void max_pool1d_backward_reference(const Pool1DGeometry& g, const T* grad_out,
                                   const int64_t* argmax, T* grad_x) {
  for (int64_t r = 0; r < g.rows; ++r) {
    T* row = grad_x + r * g.length;
    std::fill(row, row + g.length, T(0));
    for (int64_t t = 0; t < g.out_length; ++t) {
      row[argmax[r * g.out_length + t]] += grad_out[r * g.out_length + t];
    }
  }
}

template <typename T>
void avg_pool1d_forward_reference(const Pool1DGeometry& g, const T* x, T* out) {
  for (int64_t r = 0; r < g.rows; ++r) {
    for (int64_t t = 0; t < g.out_length; ++t) {
      avg_window(g, x + r * g.length, t, out + r * g.out_length);
    }
  }
}

template <typename T>
void avg_pool1d_backward_reference(const Pool1DGeometry& g, const T* grad_out, T* grad_x) {
  for (int64_t r = 0; r < g.rows; ++r) {
    T* row = grad_x + r * g.length;
    std::fill(row, row + g.length, T(0));
    for (int64_t t = 0; t < g.out_length; ++t) {
      const T share =
          grad_out[r * g.out_length + t] / static_cast<T>(g.window_end(t) - g.window_start(t));
      for (int64_t p = g.window_start(t); p < g.window_end(t); ++p) row[p] += share;
    }
  }
}

// ---- Fast versions: rows split across threads ----------------------------------------------

template <typename T>
void max_pool1d_forward(const Pool1DGeometry& g, const T* x, T* out, int64_t* argmax) {
  const int64_t full = full_windows(g);
#pragma omp parallel for schedule(static) if (g.rows * g.length >= kParallelGrain)
  for (int64_t r = 0; r < g.rows; ++r) {
    const T* row = x + r * g.length;
    T* out_row = out + r * g.out_length;
    int64_t* argmax_row = argmax + r * g.out_length;
    max_full_windows(g, full, row, out_row, argmax_row);
    for (int64_t t = full; t < g.out_length; ++t) max_window(g, row, t, out_row, argmax_row);
  }
}

// The backward passes are the oracles' loops run on row ranges in parallel: a zero fill and a
// scatter of L_out values per row, bound by memory rather than by arithmetic.
template <typename T>
void max_pool1d_backward(const Pool1DGeometry& g, const T* grad_out, const int64_t* argmax,
                         T* grad_x) {
#pragma omp parallel for schedule(static) if (g.rows * g.length >= kParallelGrain)
  for (int64_t r = 0; r < g.rows; ++r) {
    Pool1DGeometry one = g;
    one.rows = 1;
    max_pool1d_backward_reference(one, grad_out + r * g.out_length, argmax + r * g.out_length,
                                  grad_x + r * g.length);
  }
}

template <typename T>
void avg_pool1d_forward(const Pool1DGeometry& g, const T* x, T* out) {
  const int64_t full = full_windows(g);
#pragma omp parallel for schedule(static) if (g.rows * g.length >= kParallelGrain)
  for (int64_t r = 0; r < g.rows; ++r) {
    const T* row = x + r * g.length;
    T* out_row = out + r * g.out_length;
    avg_full_windows(g, full, row, out_row);
    for (int64_t t = full; t < g.out_length; ++t) avg_window(g, row, t, out_row);
  }
}

template <typename T>
void avg_pool1d_backward(const Pool1DGeometry& g, const T* grad_out, T* grad_x) {
#pragma omp parallel for schedule(static) if (g.rows * g.length >= kParallelGrain)
  for (int64_t r = 0; r < g.rows; ++r) {
    Pool1DGeometry one = g;
    one.rows = 1;
    avg_pool1d_backward_reference(one, grad_out + r * g.out_length, grad_x + r * g.length);
  }
}

#define STRAND_INSTANTIATE_POOL1D(T)                                                              \
  template void max_pool1d_forward<T>(const Pool1DGeometry&, const T*, T*, int64_t*);             \
  template void max_pool1d_backward<T>(const Pool1DGeometry&, const T*, const int64_t*, T*);      \
  template void avg_pool1d_forward<T>(const Pool1DGeometry&, const T*, T*);                       \
  template void avg_pool1d_backward<T>(const Pool1DGeometry&, const T*, T*);                      \
  template void max_pool1d_forward_reference<T>(const Pool1DGeometry&, const T*, T*, int64_t*);   \
  template void max_pool1d_backward_reference<T>(const Pool1DGeometry&, const T*, const int64_t*, \
                                                 T*);                                             \
  template void avg_pool1d_forward_reference<T>(const Pool1DGeometry&, const T*, T*);             \
  template void avg_pool1d_backward_reference<T>(const Pool1DGeometry&, const T*, T*);
STRAND_INSTANTIATE_POOL1D(float)
STRAND_INSTANTIATE_POOL1D(double)
#undef STRAND_INSTANTIATE_POOL1D

}  // namespace strand::kernels::cpu
