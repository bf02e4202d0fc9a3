// Available memory from /proc and the memory cgroup (v1 or v2), and the check built on it.
#include "data/loader/available_memory.h"

#include <sys/resource.h>

#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "data/data_error.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

// A "<key> <value>" (or "<key>: <value> kB") entry of a /proc or cgroup stat file.
std::optional<int64_t> stat_entry(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    int64_t value = 0;
    if (!(fields >> name >> value)) continue;
    if (!name.empty() && name.back() == ':') name.pop_back();
    if (name == key) return value;
  }
  return std::nullopt;
}

// The first line of a cgroup file as a byte count; nullopt for "max", absent or unreadable.
std::optional<int64_t> cgroup_value(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used != text.size() || value < 0) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// This process's cgroup path for a hierarchy ("" for v2's unified line "0::/path").
std::string cgroup_path(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find(':');
    const size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    if (controller.empty() ? line.rfind("0::", 0) == 0 : controllers == controller) {
      return line.substr(second + 1);
    }
  }
  return "";
}

// Limit minus usage of the memory cgroup, counting inactive page cache as free (the kernel
// reclaims it before failing an allocation). Looks in the process's own cgroup directory,
// then at the hierarchy root (a container sees its own cgroup there).
std::optional<int64_t> cgroup_headroom() {
  struct Layout {
    std::string root, controller, limit, usage, inactive;
  };
  const Layout layouts[] = {
      {"/sys/fs/cgroup", "", "memory.max", "memory.current", "inactive_file"},
      {"/sys/fs/cgroup/memory", "memory", "memory.limit_in_bytes", "memory.usage_in_bytes",
       "total_inactive_file"},
  };
  for (const Layout& layout : layouts) {
    const std::string own = cgroup_path(layout.controller);
    for (const std::string& dir : {layout.root + own, layout.root}) {
      if (!std::ifstream(dir + "/" + layout.usage)) continue;
      const std::optional<int64_t> limit = cgroup_value(dir + "/" + layout.limit);
      // cgroup v1 writes "no limit" as a page-rounded INT64_MAX.
      if (!limit || *limit >= (int64_t{1} << 60)) break;
      const int64_t usage = cgroup_value(dir + "/" + layout.usage).value_or(0);
      const int64_t inactive = stat_entry(dir + "/memory.stat", layout.inactive).value_or(0);
      return std::max<int64_t>(0, *limit - std::max<int64_t>(0, usage - inactive));
    }
  }
  return std::nullopt;
}

}  // namespace

AvailableMemory available_memory() {
  AvailableMemory out;
  auto consider = [&out](std::optional<int64_t> bytes, const char* source) {
    if (bytes && *bytes < out.bytes) out = {*bytes, source};
  };
  const std::optional<int64_t> meminfo_kib = stat_entry("/proc/meminfo", "MemAvailable");
  consider(meminfo_kib ? std::optional<int64_t>(*meminfo_kib * 1024) : std::nullopt,
           "MemAvailable in /proc/meminfo");
  consider(cgroup_headroom(), "the memory cgroup's limit");
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::optional<int64_t> size_kib = stat_entry("/proc/self/status", "VmSize");
    const auto cap =
        static_cast<int64_t>(std::min<rlim_t>(limit.rlim_cur, std::numeric_limits<int64_t>::max()));
    consider(std::max<int64_t>(0, cap - size_kib.value_or(0) * 1024),
             "the address-space limit RLIMIT_AS (ulimit -v)");
  }
  return out;
}

std::string format_bytes(double bytes) {
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{:.0f} bytes", bytes);
  int unit = -1;
  while (bytes >= 1024 && unit < 5) bytes /= 1024, ++unit;
  return fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

void require_memory(double bytes, const std::string& what, const std::string& advice) {
  const AvailableMemory available = available_memory();
  if (bytes <= static_cast<double>(available.bytes)) return;
  throw DataError(
      fmt::format("{} need {} but only {} is available ({}); {}", what, format_bytes(bytes),
                  format_bytes(static_cast<double>(available.bytes)), available.source, advice));
}

}  // namespace strand::data
