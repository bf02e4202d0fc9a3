// The SIGINT/SIGTERM handler: an atomic flag and, on a second signal, the default action.
#include "train/stop_signal.h"

#include <unistd.h>

#include <atomic>
#include <cstring>

#include "fmt/format.h"

namespace strand::train {
namespace {

// Written from the handler, so it must be lock-free (async-signal-safe).
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

// Only async-signal-safe calls: atomics, write(2), signal(2), raise(3).
extern "C" void on_stop_signal(int signal) {
  int expected = 0;
  if (g_stop_signal.compare_exchange_strong(expected, signal)) {
    constexpr char kMessage[] =
        "\nstrand: stopping after the current step and saving checkpoints/last.safetensors "
        "(signal again to stop at once)\n";
    const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    (void)ignored;
    return;
  }
  // A second signal: what the signal would have done without the handler (end the process).
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void install(int signal, struct sigaction* previous) {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // Interrupted system calls restart: loader threads and MPI go on until the step ends.
  action.sa_flags = SA_RESTART;
  ::sigaction(signal, &action, previous);
}

}  // namespace

StopSignalGuard::StopSignalGuard() {
  clear_stop_request();
  install(SIGINT, &previous_int_);
  install(SIGTERM, &previous_term_);
}

StopSignalGuard::~StopSignalGuard() {
  ::sigaction(SIGINT, &previous_int_, nullptr);
  ::sigaction(SIGTERM, &previous_term_, nullptr);
}

int stop_signal() { return g_stop_signal.load(); }

void request_stop(int signal) {
  int expected = 0;
  g_stop_signal.compare_exchange_strong(expected, signal);
}

void clear_stop_request() { g_stop_signal.store(0); }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return fmt::format("signal {}", signal);
}

}  // namespace strand::train
