// The register blocks of the change convolutions (kernels/cpu/conv1d_change.h and
// conv1d_change_screen.h): a block of output columns, the columns each tap reaches in it, and
// the grid of its vectors (16 lanes with AVX-512, 8 with AVX2: kernels/cpu/float_vectors.h).
// Internal to those kernels' .cpp files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/float_vectors.h"

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

// The lanes of a vector (16 where no vectors are built: the portable loops do not use the grid).
inline constexpr int64_t kLanes = float_vectors::kAvailable ? float_vectors::kLanes : 16;
inline constexpr int64_t kVectors = 3;  // columns per register block: 48 (AVX-512) or 24 (AVX2)
inline constexpr int64_t kBlockColumns = kLanes * kVectors;

// Where the first block starts (0 or a column in (-kLanes, 0)): the vector grid that wastes the
// fewest lanes at the ends of the taps' column ranges, for k_count taps where tap k reads input
// column j - (shift0 - k * dilation) of w_in for output column j of w_out. A tap whose columns
// start or end inside a vector multiplies the whole vector, and windows clipped at a crop or a
// sequence end put the taps' ends anywhere on the grid. The best grid starts a vector where some
// tap starts or ends, so only those grids are tried.
inline int64_t vector_grid_origin(int64_t k_count, int64_t dilation, int64_t shift0, int64_t w_in,
                                  int64_t w_out) {
  const auto waste_of = [&](int64_t origin) {
    int64_t waste = 0;
    for (int64_t k = 0; k < k_count; ++k) {
      const TapColumns t = tap_columns({0, 0, w_out}, shift0 - k * dilation, w_in);
      if (t.hi <= t.lo) continue;
      const int64_t lo = t.lo - origin, hi = t.hi - origin;  // on the grid from `origin`
      waste += lo % kLanes + (kLanes - hi % kLanes) % kLanes;
    }
    return waste;
  };
  int64_t best = 0, least = waste_of(0);
  for (int64_t k = 0; k < k_count && least > 0; ++k) {
    const TapColumns t = tap_columns({0, 0, w_out}, shift0 - k * dilation, w_in);
    if (t.hi <= t.lo) continue;
    for (const int64_t edge : {t.lo, t.hi}) {
      const int64_t origin = -((kLanes - edge % kLanes) % kLanes);  // in (-kLanes, 0]
      const int64_t waste = waste_of(origin);
      if (waste < least) {
        least = waste;
        best = origin;
      }
    }
  }
  return best;
}

// Calls f(first, end) with the vectors [first, end) of a block (0 <= first < end <= kVectors) as
// std::integral_constant<int, .> arguments, so that a kernel's loops over the vectors a tap
// reaches unroll with every accumulator index a constant (its registers, not the stack).
template <typename F>
[[gnu::always_inline]] inline void with_vector_range(int64_t first, int64_t end, F&& f) {
  using std::integral_constant;
  switch (first * 4 + end) {
    case 1:
      return f(integral_constant<int, 0>{}, integral_constant<int, 1>{});
    case 2:
      return f(integral_constant<int, 0>{}, integral_constant<int, 2>{});
    case 3:
      return f(integral_constant<int, 0>{}, integral_constant<int, 3>{});
    case 6:
      return f(integral_constant<int, 1>{}, integral_constant<int, 2>{});
    case 7:
      return f(integral_constant<int, 1>{}, integral_constant<int, 3>{});
    default:
      return f(integral_constant<int, 2>{}, integral_constant<int, 3>{});
  }
}

#if defined(__AVX512F__)
using float_vectors::lanes;  // 16-lane masks (the bfloat16 screen's)
#endif

}  // namespace strand::kernels::cpu::change_blocks
