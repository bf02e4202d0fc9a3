// Coarse-grained parallelism for explanations: independent units of work (a batch of mutants, a
// group of sequences with their references) run one per OpenMP thread, and the ops inside each
// run single-threaded (OpenMP's nested regions are serial). Many small ops each split across
// the threads would wait on each other at every op; whole units do not, and a core shared with
// other work slows one unit instead of every op. Results are the same whatever the thread
// count: each unit writes its own outputs.
#pragma once

#include <omp.h>

#include <cstdint>
#include <exception>
#include <mutex>

#include "core/stop_signal.h"

namespace strand::alternates {

/// Runs the ops inside its scope on the calling thread alone, when `serial`. For a pass over
/// fewer sequences than threads: the ops split their work by sequence, so the other threads
/// would only wait, and their spinning slowed the one that works (a 2,114 bp BPNet reference
/// pass took 45 ms on 2 threads against 3 ms on one).
class SerialOps {
 public:
  explicit SerialOps(bool serial) : previous_(omp_get_max_threads()) {
    if (serial) omp_set_num_threads(1);
  }
  ~SerialOps() { omp_set_num_threads(previous_); }
  SerialOps(const SerialOps&) = delete;
  SerialOps& operator=(const SerialOps&) = delete;

 private:
  int previous_;
};

/// Units of work queued from one host thread when the model runs on a GPU: the device runs the
/// passes in order anyway, and the CUDA backend's streams and caches are not meant to be driven
/// from several host threads at once.
class DeviceUnits {
 public:
  explicit DeviceUnits(bool on_device) : serial_(on_device) {}

 private:
  SerialOps serial_;
};

/// Runs unit(i) for every i in [0, count): on the OpenMP threads when there are at least two
/// units and two threads, else in order on this thread (whose ops then use every thread).
/// Rethrows the first exception a unit threw, after the others have finished. Each unit starts
/// with a poll for SIGINT/SIGTERM (core/stop_signal.h): a stop request ends the work with
/// Interrupted after the units running have finished.
template <typename Unit>
void for_each_unit(int64_t count, Unit&& unit) {
  if (count < 2 || omp_get_max_threads() < 2 || omp_in_parallel()) {
    for (int64_t i = 0; i < count; ++i) {
      throw_if_stop_requested();
      unit(i);
    }
    return;
  }
  std::exception_ptr failure;
  std::mutex failure_mutex;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < count; ++i) {
    {
      std::lock_guard lock(failure_mutex);
      if (failure) continue;
    }
    try {
      throw_if_stop_requested();
      unit(i);
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace strand::alternates
