// The check that inputs of real numbers are finite: a NaN or an infinity in a one-hot array or a
// control track would give NaN predictions without a word. One rule for every entry point (the
// Python package's arrays, and any caller of the library that takes floats from a user).
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>

namespace strand {

/// The index of the first value of values[0, n) that is NaN or infinite; nullopt when all are
/// finite.
inline std::optional<size_t> first_non_finite(const float* values, size_t n) {
  // One pass the compiler vectorizes (no early exit), then the position.
  bool all_finite = true;
  for (size_t i = 0; i < n; ++i) all_finite &= std::isfinite(values[i]);
  if (all_finite) return std::nullopt;
  for (size_t i = 0;; ++i) {
    if (!std::isfinite(values[i])) return i;
  }
}

}  // namespace strand
