// What every long call of the Python API holds while it computes without the GIL: the call's
// OpenMP thread count (threads=, checked against the thread cap the CLI's --threads uses), and
// the SIGINT/SIGTERM guard through which Ctrl-C stops the work at its next poll and raises
// KeyboardInterrupt (core/stop_signal.h; errors.cpp translates Interrupted).
#pragma once

#include <omp.h>

#include <cstdint>
#include <optional>

#include "app/config_error.h"
#include "app/pass_options.h"
#include "core/stop_signal.h"
#include "core/value_range.h"

namespace strand::python {

/// Throws ConfigError naming `threads` unless it is None or a thread count in [1, the cap].
inline void check_thread_count(std::optional<int64_t> threads) {
  if (!threads) return;
  const std::string problem = thread_count_problem("threads", *threads);
  if (!problem.empty()) throw app::ConfigError(problem + " (None: as set, every core by default)");
}

/// Checks a call's batch_size and threads by the rule of the CLI's --batch-size and --threads
/// (app::PassOptions::validate), naming the keyword arguments.
inline void check_pass(int64_t batch_size, std::optional<int64_t> threads) {
  app::PassOptions{.batch_size = batch_size, .threads = threads}.validate(
      app::PassOptionNames::keyword_names());
}

/// Sets the calling thread's OpenMP team size for its lifetime (none: unchanged).
class ThreadCount {
 public:
  explicit ThreadCount(std::optional<int64_t> threads) : previous_(omp_get_max_threads()) {
    check_thread_count(threads);
    if (threads) omp_set_num_threads(static_cast<int>(*threads));
  }
  ~ThreadCount() { omp_set_num_threads(previous_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int previous_;
};

/// A long call's scope: its thread count, and SIGINT/SIGTERM turned into Interrupted at the
/// work's next poll (Python's own handler is back when the scope ends).
class LongCall {
 public:
  explicit LongCall(std::optional<int64_t> threads) : threads_(threads), stop_signals_(nullptr) {}

 private:
  ThreadCount threads_;
  StopSignalGuard stop_signals_;
};

}  // namespace strand::python
