// Value ranges and the machine's thread cap.
#include "core/value_range.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace strand {

int hardware_threads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int max_threads() { return std::max(kMinThreadCap, 4 * hardware_threads()); }

int64_t IntRange::upper() const { return up_to_thread_cap ? max_threads() : hi; }

std::string IntRange::text() const { return fmt::format("[{}, {}]", lo, upper()); }

std::string thread_cap_note() {
  return fmt::format("the cap is the larger of {} and 4 x the {} hardware threads", kMinThreadCap,
                     hardware_threads());
}

std::string thread_count_problem(std::string_view name, int64_t threads, const IntRange& range) {
  if (range.contains(threads)) return "";
  return fmt::format("{}: must be in {} ({}), got {}", name, range.text(), thread_cap_note(),
                     threads);
}

std::string RealRange::text() const {
  return fmt::format("{}{}, {}{}", lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
}

}  // namespace strand
