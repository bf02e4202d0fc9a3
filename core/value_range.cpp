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

std::string RealRange::text() const {
  return fmt::format("{}{}, {}{}", lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
}

}  // namespace strand
