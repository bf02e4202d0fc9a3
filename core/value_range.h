// The values a setting accepts, declared once beside the setting: an inclusive integer range or
// a real interval with open or closed ends. The library's option structs declare the ranges of
// their numbers with these (data/loader/loader_config.h), their validate() checks them, and the
// CLI's config key table (cli/config_keys.h) checks config values and flags against the same
// declarations, so no range is written twice.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strand {

/// The smallest thread cap: max_threads() is never below this.
inline constexpr int kMinThreadCap = 64;

/// std::thread::hardware_concurrency(), at least 1.
int hardware_threads();
/// The largest thread count a setting may ask for: 4 x hardware_threads(), at least
/// kMinThreadCap (more threads than that only oversubscribe the cores).
int max_threads();

/// An inclusive integer range [lo, hi]. Thread counts end at the thread cap, max_threads(),
/// which depends on the machine.
struct IntRange {
  int64_t lo = 0;
  int64_t hi = 0;
  bool up_to_thread_cap = false;  ///< hi is max_threads()

  /// hi, or max_threads().
  int64_t upper() const;
  bool contains(int64_t value) const { return value >= lo && value <= upper(); }
  /// "[1, 10000000]".
  std::string text() const;
};

/// A real interval, each end open or closed: (0, 1000] is RealRange{0, 1000, true}. NaN and
/// the infinities are outside every range.
struct RealRange {
  double lo = 0;
  double hi = 0;
  bool lo_open = false;
  bool hi_open = false;

  bool contains(double value) const {
    return (lo_open ? value > lo : value >= lo) && (hi_open ? value < hi : value <= hi);
  }
  /// "(0, 1000]".
  std::string text() const;
};

/// The thread counts one call may ask for: 1 to the thread cap. The CLI's --threads and the
/// Python package's threads= are both checked against it (a setting's 0, "all cores", is
/// resolved to a count before).
inline constexpr IntRange kThreadCountRange{.lo = 1, .up_to_thread_cap = true};

/// "the cap is the larger of 64 and 4 x the 16 hardware threads": why the cap is what it is.
std::string thread_cap_note();

/// Why `threads` is not a count in `range` (an IntRange up to the thread cap), naming `name`:
/// "threads: must be in [1, 64] (the cap is ...), got 100000"; empty when it is one. More threads
/// than the cap only oversubscribe the cores, and far more (10,000) fail to start in libgomp.
std::string thread_count_problem(std::string_view name, int64_t threads,
                                 const IntRange& range = kThreadCountRange);

}  // namespace strand
