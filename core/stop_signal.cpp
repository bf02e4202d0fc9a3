// The SIGINT/SIGTERM handler: an atomic flag and, on a second signal, the default action; the
// guards that install it, counted so that they nest; the poll that turns a request into
// Interrupted.
#include "core/stop_signal.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace strand {
namespace {

// Written from the handler, so they must be lock-free (async-signal-safe).
std::atomic<int> g_stop_signal{0};
std::atomic<const char*> g_message{nullptr};
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<const char*>::is_always_lock_free);

// The guards alive, and the handlers the outermost one replaced.
std::mutex g_guard_mutex;
int g_guards = 0;
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

// raise_signal_at_poll(): polls left before the raise (0: off), and the signal.
std::atomic<int64_t> g_polls_left{0};
std::atomic<int> g_poll_signal{0};

// Only async-signal-safe calls: atomics, strlen, write(2), signal(2), raise(3).
extern "C" void on_stop_signal(int signal) {
  int expected = 0;
  if (g_stop_signal.compare_exchange_strong(expected, signal)) {
    const char* message = g_message.load();
    if (message != nullptr) {
      const ssize_t ignored = ::write(STDERR_FILENO, message, std::strlen(message));
      (void)ignored;
    }
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

StopSignalGuard::StopSignalGuard(const char* message) {
  const std::lock_guard<std::mutex> lock(g_guard_mutex);
  previous_message_ = g_message.exchange(message);
  if (g_guards++ > 0) return;
  clear_stop_request();
  install(SIGINT, &g_previous_int);
  install(SIGTERM, &g_previous_term);
}

StopSignalGuard::~StopSignalGuard() {
  const std::lock_guard<std::mutex> lock(g_guard_mutex);
  g_message.store(previous_message_);
  if (--g_guards > 0) return;
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
  clear_stop_request();
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

Interrupted::Interrupted(int signal)
    : Error(fmt::format("interrupted by {}", signal_name(signal))), signal_(signal) {}

int poll_stop_signal() {
  if (g_polls_left.load(std::memory_order_relaxed) > 0 && g_polls_left.fetch_sub(1) == 1) {
    bool guarded = false;
    {
      const std::lock_guard<std::mutex> lock(g_guard_mutex);
      guarded = g_guards > 0;
    }
    if (guarded) std::raise(g_poll_signal.load());
  }
  return stop_signal();
}

void throw_if_stop_requested() {
  const int signal = poll_stop_signal();
  if (signal != 0) throw Interrupted(signal);
}

void raise_signal_at_poll(int64_t polls, int signal) {
  g_poll_signal.store(signal);
  g_polls_left.store(polls > 0 ? polls : 0);
}

}  // namespace strand
