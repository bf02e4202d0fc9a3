// How much memory this process can still allocate, so that a dataset too large to hold is
// refused with its size before the allocation (instead of std::bad_alloc or the OOM killer).
#pragma once

#include <cstdint>
#include <string>

namespace strand::data {

/// The tightest of: the system's MemAvailable (/proc/meminfo), the memory cgroup's limit minus
/// its usage (v2 memory.max / v1 memory.limit_in_bytes, reclaimable page cache not counted as
/// used), and the address-space limit (RLIMIT_AS) minus the address space in use.
struct AvailableMemory {
  int64_t bytes = INT64_MAX;  ///< INT64_MAX when nothing could be read
  std::string source;         ///< which limit that is, e.g. "MemAvailable in /proc/meminfo"
};

AvailableMemory available_memory();

/// "512 bytes", "3.2 MiB", "1.5 GiB".
std::string format_bytes(double bytes);

/// Throws DataError when `bytes` exceed available_memory(), with a message of the form
/// "<what> need 38.1 GiB but only 2.0 GiB is available (<source>); <advice>".
void require_memory(double bytes, const std::string& what, const std::string& advice);

}  // namespace strand::data
