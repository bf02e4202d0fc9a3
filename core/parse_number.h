// Whole-string number parsing for values read from files (checkpoint metadata, CSV rows,
// optimizer state names): unlike std::stoll/std::stod, "1x", " 5", "" and out-of-range values
// are rejected rather than read in part, and nothing throws.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace strand {

/// The integer `text` spells in full (optional '-', decimal digits); nullopt for anything else,
/// including a leading '+' or spaces, trailing characters and values outside int64.
inline std::optional<int64_t> parse_int64(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

/// The floating-point number `text` spells in full, in the forms std::from_chars reads
/// (decimal or scientific, "inf", "-inf", "nan"); nullopt for anything else or an overflow.
inline std::optional<double> parse_double(std::string_view text) {
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace strand
