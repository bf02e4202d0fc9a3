// Test helper: run a piece of a test in a forked child process. For checks that need a memory
// high-water mark of their own (/proc/self/status VmHWM), a resource limit (setrlimit) that must
// not hold the test program, or that would abort the whole test program if the bug came back.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <string>

namespace strand::testing {

/// AddressSanitizer and ThreadSanitizer reserve terabytes of address space and keep freed
/// memory in quarantine: address-space limits and resident-memory measurements mean nothing
/// under them, so the tests built on those skip there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

struct ChildResult {
  bool exited = false;  // ended by _exit (false: killed by a signal, e.g. SIGABRT)
  int exit_code = -1;   // 0: body returned; 1: body threw (output holds what())
  int signal = 0;       // the signal that killed it, when !exited
  std::string output;   // body's return value, or the exception message

  std::string describe() const {
    return exited ? "exit " + std::to_string(exit_code) + ": " + output
                  : "killed by signal " + std::to_string(signal) + " after: " + output;
  }
};

/// Forks; the child runs `body` and sends its returned text back over a pipe, then leaves with
/// _exit so that it never returns into the test framework. The child must not rely on threads
/// of the parent (only the forking thread exists in it).
inline ChildResult run_in_child(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return {false, -1, 0, "pipe() failed"};
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) return {false, -1, 0, "fork() failed"};
  if (pid == 0) {
    ::close(fds[0]);
    std::string text;
    int code = 0;
    try {
      text = body();
    } catch (const std::exception& error) {
      text = error.what();
      code = 1;
    } catch (...) {
      text = "unknown exception";
      code = 1;
    }
    size_t sent = 0;
    while (sent < text.size()) {
      const ssize_t n = ::write(fds[1], text.data() + sent, text.size() - sent);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    ::close(fds[1]);
    ::_exit(code);
  }
  ::close(fds[1]);
  ChildResult result;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exited = WIFEXITED(status);
  result.exit_code = result.exited ? WEXITSTATUS(status) : -1;
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return result;
}

/// A "Vm...:" field of /proc/self/status in KiB (VmRSS: resident now, VmHWM: peak resident,
/// VmSize: address space); -1 when absent.
inline int64_t proc_status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1));
  }
  return -1;
}

}  // namespace strand::testing
