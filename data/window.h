// Window arithmetic shared by all sources, so in-memory and streaming modes cut the same bases.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "data/encoding.h"

namespace strand::data {

/// Start of the L-base window centred on `centre`, moved by `shift`, and then kept inside a
/// sequence of `total` bases (when total < L the window starts at 0 and the tail is N).
inline int64_t window_start(int64_t centre, int64_t length, int64_t shift, int64_t total) {
  const int64_t start = centre - length / 2 + shift;
  return std::clamp<int64_t>(start, 0, std::max<int64_t>(0, total - length));
}

/// Copies the window [start, start + L) of `stored` (n codes) to out, N beyond the end.
inline void copy_window(const uint8_t* stored, int64_t n, int64_t start, int64_t length,
                        uint8_t* out) {
  const int64_t available = std::clamp<int64_t>(n - start, 0, length);
  if (available > 0) std::memcpy(out, stored + start, static_cast<size_t>(available));
  std::memset(out + available, kCodeN, static_cast<size_t>(length - available));
}

}  // namespace strand::data
