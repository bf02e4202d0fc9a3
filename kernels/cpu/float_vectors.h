// Float vectors of the widest x86 instruction set this build targets, AVX-512 or AVX2 with FMA,
// for register-blocked kernels written once for both (kernels/cpu/conv1d_change.cpp): 16 or 8
// lanes, and lane masks (an AVX-512 mask register, or an AVX2 vector whose lanes are all ones or
// all zeros). Builds with neither (other CPUs, x86-64 before v3) have kAvailable false and no
// vectors; their callers keep portable loops. Internal to kernels/cpu.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace strand::kernels::cpu::float_vectors {

#if defined(__AVX512F__)

inline constexpr bool kAvailable = true;
inline constexpr int64_t kLanes = 16;
/// Whether a masked load costs as much as a plain one (AVX-512), so that kernels need not avoid
/// partial vectors in their inner loops.
inline constexpr bool kMaskedLoadsAreFree = true;
using Vector = __m512;
using Mask = __mmask16;

[[gnu::always_inline]] inline Vector zero() { return _mm512_setzero_ps(); }
[[gnu::always_inline]] inline Vector broadcast(float value) { return _mm512_set1_ps(value); }
[[gnu::always_inline]] inline Vector load(const float* p) { return _mm512_loadu_ps(p); }
/// Lanes outside `m` read as zero and are not read: p may point outside an allocation there.
[[gnu::always_inline]] inline Vector load(Mask m, const float* p) {
  return _mm512_maskz_loadu_ps(m, p);
}
[[gnu::always_inline]] inline void store(float* p, Vector v) { _mm512_storeu_ps(p, v); }
[[gnu::always_inline]] inline void store(float* p, Mask m, Vector v) {
  _mm512_mask_storeu_ps(p, m, v);
}
[[gnu::always_inline]] inline Vector fmadd(Vector a, Vector b, Vector c) {
  return _mm512_fmadd_ps(a, b, c);
}
[[gnu::always_inline]] inline Vector add(Vector a, Vector b) { return _mm512_add_ps(a, b); }
[[gnu::always_inline]] inline Vector sub(Vector a, Vector b) { return _mm512_sub_ps(a, b); }
// The maskz form: GCC 12 warns about the plain one's undefined pass-through operand.
[[gnu::always_inline]] inline Vector max(Vector a, Vector b) {
  return _mm512_maskz_max_ps(0xFFFF, a, b);
}

/// Lanes [lo, hi), each bound clamped to [0, kLanes].
[[gnu::always_inline]] inline Mask lanes(int64_t lo, int64_t hi) {
  lo = std::clamp<int64_t>(lo, 0, kLanes);
  hi = std::clamp<int64_t>(hi, lo, kLanes);
  const uint32_t upto_hi = (uint32_t{1} << hi) - 1U, below_lo = (uint32_t{1} << lo) - 1U;
  return static_cast<Mask>(upto_hi & ~below_lo);
}
/// Lane i set where bit i of `bits` is.
[[gnu::always_inline]] inline Mask from_bits(uint64_t bits) { return static_cast<Mask>(bits); }
[[gnu::always_inline]] inline Mask both(Mask a, Mask b) { return static_cast<Mask>(a & b); }
[[gnu::always_inline]] inline bool none(Mask m) { return m == 0; }
[[gnu::always_inline]] inline bool full(Mask m) { return m == 0xFFFF; }

#elif defined(__AVX2__) && defined(__FMA__)

inline constexpr bool kAvailable = true;
inline constexpr int64_t kLanes = 8;
/// vmaskmovps costs an extra operation a load (and much more a store on AMD's Zen): kernels keep
/// partial vectors out of their inner loops.
inline constexpr bool kMaskedLoadsAreFree = false;
using Vector = __m256;
using Mask = __m256i;

[[gnu::always_inline]] inline Vector zero() { return _mm256_setzero_ps(); }
[[gnu::always_inline]] inline Vector broadcast(float value) { return _mm256_set1_ps(value); }
[[gnu::always_inline]] inline Vector load(const float* p) { return _mm256_loadu_ps(p); }
/// Lanes outside `m` read as zero and are not read: p may point outside an allocation there.
[[gnu::always_inline]] inline Vector load(Mask m, const float* p) {
  return _mm256_maskload_ps(p, m);
}
[[gnu::always_inline]] inline void store(float* p, Vector v) { _mm256_storeu_ps(p, v); }
[[gnu::always_inline]] inline void store(float* p, Mask m, Vector v) {
  _mm256_maskstore_ps(p, m, v);
}
[[gnu::always_inline]] inline Vector fmadd(Vector a, Vector b, Vector c) {
  return _mm256_fmadd_ps(a, b, c);
}
[[gnu::always_inline]] inline Vector add(Vector a, Vector b) { return _mm256_add_ps(a, b); }
[[gnu::always_inline]] inline Vector sub(Vector a, Vector b) { return _mm256_sub_ps(a, b); }
[[gnu::always_inline]] inline Vector max(Vector a, Vector b) { return _mm256_max_ps(a, b); }

/// Lanes [lo, hi), each bound clamped to [0, kLanes].
[[gnu::always_inline]] inline Mask lanes(int64_t lo, int64_t hi) {
  lo = std::clamp<int64_t>(lo, 0, kLanes);
  hi = std::clamp<int64_t>(hi, lo, kLanes);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_and_si256(_mm256_cmpgt_epi32(lane, _mm256_set1_epi32(static_cast<int>(lo) - 1)),
                          _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(hi)), lane));
}
/// Lane i set where bit i of `bits` is.
[[gnu::always_inline]] inline Mask from_bits(uint64_t bits) {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i selected = _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits & 0xFFU)), bit);
  return _mm256_cmpeq_epi32(selected, bit);
}
[[gnu::always_inline]] inline Mask both(Mask a, Mask b) { return _mm256_and_si256(a, b); }
[[gnu::always_inline]] inline bool none(Mask m) { return _mm256_testz_si256(m, m) != 0; }
[[gnu::always_inline]] inline bool full(Mask m) {
  return _mm256_movemask_ps(_mm256_castsi256_ps(m)) == 0xFF;
}

#else

inline constexpr bool kAvailable = false;
inline constexpr int64_t kLanes = 1;

#endif

}  // namespace strand::kernels::cpu::float_vectors
