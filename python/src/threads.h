// threads= of the Python API: the OpenMP thread count for one call, put back afterwards.
#pragma once

#include <omp.h>

#include <optional>

#include "cli/config_error.h"

namespace strand::python {

/// Sets the calling thread's OpenMP team size for its lifetime (none: unchanged).
class ThreadCount {
 public:
  explicit ThreadCount(std::optional<int> threads) : previous_(omp_get_max_threads()) {
    if (!threads) return;
    if (*threads < 1) {
      throw cli::ConfigError("threads: must be >= 1 (None: every core), got " +
                             std::to_string(*threads));
    }
    omp_set_num_threads(*threads);
  }
  ~ThreadCount() { omp_set_num_threads(previous_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int previous_;
};

}  // namespace strand::python
