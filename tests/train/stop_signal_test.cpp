// The SIGINT/SIGTERM handler: the first signal becomes a stop request (the process lives on),
// a second ends the process as the signal would, and the previous handlers come back.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "train/stop_signal.h"

namespace strand::train {
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

}  // namespace
}  // namespace strand::train
