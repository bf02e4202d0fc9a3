// The thread cap: one rule for the CLI's --threads and the Python package's threads= (issue 38:
// threads=100000 crashed the interpreter; the CLI capped at 64).
#include <doctest/doctest.h>

#include <string>

#include "core/value_range.h"

namespace strand {
namespace {

TEST_CASE("thread counts: 1 to the cap are taken, the rest refused naming the argument") {
  CHECK(thread_count_problem("threads", 1).empty());
  CHECK(thread_count_problem("threads", max_threads()).empty());
  CHECK(max_threads() >= kMinThreadCap);
  for (const int64_t bad : {int64_t{0}, int64_t{-1}, int64_t{max_threads()} + 1, int64_t{10000},
                            int64_t{100000}, int64_t{1} << 40}) {
    CAPTURE(bad);
    const std::string problem = thread_count_problem("threads", bad);
    CHECK(problem.starts_with("threads: must be in [1, " + std::to_string(max_threads()) + "]"));
    CHECK(problem.ends_with("got " + std::to_string(bad)));
    CHECK(problem.find(thread_cap_note()) != std::string::npos);
  }
  // The CLI's range (0: every core) ends at the same cap.
  const IntRange cli{.lo = 0, .up_to_thread_cap = true};
  CHECK(thread_count_problem("--threads", 0, cli).empty());
  CHECK_FALSE(thread_count_problem("--threads", max_threads() + 1, cli).empty());
}

}  // namespace
}  // namespace strand
