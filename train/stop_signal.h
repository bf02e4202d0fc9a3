// Stopping training cleanly on SIGINT or SIGTERM (Ctrl-C, a batch scheduler's preemption): the
// first signal only records a request, which fit() honours at its next step by checkpointing
// and returning; a second signal ends the process at once, as it would without the handler.
#pragma once

#include <csignal>
#include <string>

namespace strand::train {

/// Installs the handler for SIGINT and SIGTERM while alive, after clearing any earlier
/// request, and puts the previous handlers back when destroyed. Not reentrant: one at a time.
class StopSignalGuard {
 public:
  StopSignalGuard();
  ~StopSignalGuard();
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

/// The signal that asked training to stop (SIGINT or SIGTERM), or 0 when none has.
int stop_signal();

/// Records a stop request as the handler does for `signal` (a signal number > 0); a request
/// already recorded is kept.
void request_stop(int signal);

/// Forgets the request (the next run in this process starts clean).
void clear_stop_request();

/// "SIGINT", "SIGTERM", else "signal N".
std::string signal_name(int signal);

/// The shell's exit status for a process ended by `signal`: 128 + signal (130, 143).
inline int signal_exit_status(int signal) { return 128 + signal; }

}  // namespace strand::train
