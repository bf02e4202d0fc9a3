// The SIGINT/SIGTERM handler: the first signal becomes a stop request (the process lives on),
// a second ends the process as the signal would, and the previous handlers come back; guards
// nest; a poll turns the request into Interrupted.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "core/stop_signal.h"

namespace strand {
namespace {

// The handler currently installed for `signal`.
void (*current_handler(int signal))(int) {
  struct sigaction action {};
  ::sigaction(signal, nullptr, &action);
  return action.sa_handler;
}

TEST_CASE("stop signals: SIGTERM and SIGINT become a stop request while the guard lives") {
  void (*const before_term)(int) = current_handler(SIGTERM);
  void (*const before_int)(int) = current_handler(SIGINT);
  request_stop(SIGINT);
  {
    const StopSignalGuard guard;
    CHECK(stop_signal() == 0);  // an earlier request is forgotten
    ::raise(SIGTERM);           // handled synchronously: the process survives
    CHECK(stop_signal() == SIGTERM);
    request_stop(SIGINT);  // the first request is kept
    CHECK(stop_signal() == SIGTERM);
    CHECK((current_handler(SIGINT) != before_int));
  }
  CHECK((current_handler(SIGTERM) == before_term));
  CHECK((current_handler(SIGINT) == before_int));
  clear_stop_request();
  CHECK(stop_signal() == 0);
  CHECK(signal_name(SIGINT) == "SIGINT");
  CHECK(signal_name(SIGTERM) == "SIGTERM");
  CHECK(signal_exit_status(SIGINT) == 130);
  CHECK(signal_exit_status(SIGTERM) == 143);
}

TEST_CASE("stop signals: a second signal ends the process at once") {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const StopSignalGuard guard;
    ::raise(SIGINT);
    if (stop_signal() != SIGINT) ::_exit(2);  // the first signal must not end the process
    ::raise(SIGINT);
    ::_exit(3);  // not reached: the second signal ends it
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
}

TEST_CASE("stop signals: guards nest, and the last one restores the handlers and the request") {
  void (*const before_term)(int) = current_handler(SIGTERM);
  {
    const StopSignalGuard outer;
    {
      const StopSignalGuard inner(nullptr);
      ::raise(SIGTERM);
      CHECK(stop_signal() == SIGTERM);
    }
    // The inner guard's end keeps the handler and the request: the outer work must see it.
    CHECK((current_handler(SIGTERM) != before_term));
    CHECK(stop_signal() == SIGTERM);
  }
  CHECK((current_handler(SIGTERM) == before_term));
  CHECK(stop_signal() == 0);  // work polled outside a guard never stops
}

TEST_CASE("stop signals: a poll throws Interrupted naming the signal once one is requested") {
  const StopSignalGuard guard(nullptr);
  CHECK_NOTHROW(throw_if_stop_requested());
  CHECK(poll_stop_signal() == 0);
  request_stop(SIGINT);
  CHECK(poll_stop_signal() == SIGINT);
  try {
    throw_if_stop_requested();
    FAIL("no Interrupted");
  } catch (const Interrupted& stopped) {
    CHECK(stopped.signal() == SIGINT);
    CHECK(std::string(stopped.what()) == "interrupted by SIGINT");
  }
}

TEST_CASE("stop signals: the testing aid raises the signal at the n-th poll, under a guard") {
  {
    const StopSignalGuard guard(nullptr);
    raise_signal_at_poll(3, SIGTERM);
    CHECK_NOTHROW(throw_if_stop_requested());
    CHECK_NOTHROW(throw_if_stop_requested());
    CHECK_THROWS_AS(throw_if_stop_requested(), Interrupted);
    CHECK(stop_signal() == SIGTERM);
  }
  // Without a guard the aid raises nothing (the default action would end the test program).
  raise_signal_at_poll(1, SIGTERM);
  CHECK_NOTHROW(throw_if_stop_requested());
  raise_signal_at_poll(0, SIGTERM);
}

}  // namespace
}  // namespace strand
