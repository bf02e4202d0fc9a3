// Stopping long work cleanly on SIGINT or SIGTERM (Ctrl-C, a batch scheduler's preemption): the
// first signal only records a request, which the work honours at its next poll (training
// checkpoints and returns; predict, explain, variants and the other commands throw Interrupted,
// so that every temporary file is removed as the stack unwinds); a second signal ends the
// process at once, as it would without the handler. One mechanism for the CLI's commands and
// the Python package's long calls.
#pragma once

#include <csignal>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace strand {

/// What the handler prints on the first signal when a guard gives no message of its own.
inline constexpr const char* kDefaultStopMessage =
    "\nstrand: stopping at the next batch; nothing is written (signal again to stop at once)\n";

/// Installs the handler for SIGINT and SIGTERM while alive and puts the previous handlers back
/// when the last guard goes. Guards nest (and may live on several threads): the outermost one
/// clears any earlier request and installs the handler, inner ones only count; when the
/// outermost goes, the request is forgotten too (work polled outside a guard never stops).
/// `message` (a string literal: the handler writes it with write(2)) is printed to stderr on the
/// first signal; nullptr prints nothing (the Python package raises KeyboardInterrupt instead). An
/// inner guard's message replaces the outer one's while it lives.
class StopSignalGuard {
 public:
  explicit StopSignalGuard(const char* message = kDefaultStopMessage);
  ~StopSignalGuard();
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;

 private:
  const char* previous_message_ = nullptr;
};

/// The signal that asked the work to stop (SIGINT or SIGTERM), or 0 when none has.
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

/// Thrown by throw_if_stop_requested(): the work stopped at a signal's request. The CLI turns it
/// into a one-line message and exit status 128 + signal; the Python package into
/// KeyboardInterrupt.
class Interrupted : public Error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// A poll point of long work that stops by itself (variant scoring returns what it has): the
/// signal that asked it to stop, or 0.
int poll_stop_signal();

/// A poll point of long work: throws Interrupted when a stop was requested. Call it between
/// batches, never inside a parallel region (an exception must not leave an OpenMP team).
void throw_if_stop_requested();

/// Testing aid: the `polls`-th poll (poll_stop_signal(), throw_if_stop_requested()) from now
/// raises `signal` in this process first (as a signal from outside would arrive), when a guard is
/// installed. polls <= 0 turns it off.
void raise_signal_at_poll(int64_t polls, int signal);

}  // namespace strand
