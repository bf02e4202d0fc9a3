// The register blocks of the change convolutions (kernels/cpu/conv1d_change.h and
// conv1d_change_screen.h): a block of output columns, the columns each tap reaches in it, and
// the lane masks of its 16-lane vectors. Internal to those kernels' .cpp files.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace strand::kernels::cpu::change_blocks {

// Output columns [j0 + lo, j0 + hi) of a block starting at column j0 (which may be negative).
struct BlockColumns {
  int64_t j0, lo, hi;
};

// The columns of a block that read d through a tap of shift s (input column j - s).
struct TapColumns {
  int64_t first_input;  // the input column of output column j0 (may lie outside d)
  int64_t lo, hi;       // output columns [j0 + lo, j0 + hi) that read inside d
};

inline TapColumns tap_columns(const BlockColumns& b, int64_t shift, int64_t w_in) {
  const int64_t first = b.j0 - shift;
  const int64_t lo = std::clamp<int64_t>(-first, b.lo, b.hi);
  return {first, lo, std::clamp<int64_t>(w_in - first, lo, b.hi)};
}

inline constexpr int64_t kLanes = 16;
inline constexpr int64_t kVectors = 3;  // columns per register block: 48
inline constexpr int64_t kBlockColumns = kLanes * kVectors;

#if defined(__AVX512F__)
// Lanes [lo, hi) of a 16-lane vector, each bound clamped to [0, 16].
inline __mmask16 lanes(int64_t lo, int64_t hi) {
  lo = std::clamp<int64_t>(lo, 0, kLanes);
  hi = std::clamp<int64_t>(hi, lo, kLanes);
  const uint32_t upto_hi = (uint32_t{1} << hi) - 1U, below_lo = (uint32_t{1} << lo) - 1U;
  return static_cast<__mmask16>(upto_hi & ~below_lo);
}
#endif

}  // namespace strand::kernels::cpu::change_blocks
