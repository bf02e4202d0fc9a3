// Test helper: where the `strand` program is, for the tests that start it as a child process.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace strand::test {

/// The `strand` executable: env STRAND_EXE when set (the GPU bundle's bin/run_tests.sh sets it),
/// else a `strand` beside the running test program (the bundle keeps both in bin/), else the
/// build tree's, compiled in as STRAND_EXE (tests/CMakeLists.txt). Empty when none is known.
/// The compiled-in path comes last: on another machine it names a file that is not there.
inline std::filesystem::path strand_executable() {
  if (const char* env = std::getenv("STRAND_EXE"); env != nullptr && *env != '\0') return env;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path sibling = self.parent_path() / "strand";
    if (std::filesystem::is_regular_file(sibling, error) && ::access(sibling.c_str(), X_OK) == 0) {
      return sibling;
    }
  }
#ifdef STRAND_EXE
  return STRAND_EXE;
#else
  return {};
#endif
}

}  // namespace strand::test
