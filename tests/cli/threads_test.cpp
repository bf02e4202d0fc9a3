// threads 0 follows OMP_NUM_THREADS, as every OpenMP program does.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "app/run_config.h"
#include "cli_test_support.h"

namespace strand::cli {

using app::ConfigError;
using app::default_config;
using app::resolved_threads;
using app::RunConfig;
namespace {

using testing::run;
using testing::TempDir;
using testing::tiny_run;

// Sets OMP_NUM_THREADS for its lifetime (unset: nullptr), restoring the previous value.
class OmpNumThreads {
 public:
  explicit OmpNumThreads(const char* value) {
    if (const char* old = std::getenv("OMP_NUM_THREADS")) previous_ = old, had_ = true;
    if (value != nullptr) {
      ::setenv("OMP_NUM_THREADS", value, 1);
    } else {
      ::unsetenv("OMP_NUM_THREADS");
    }
  }
  ~OmpNumThreads() {
    if (had_) {
      ::setenv("OMP_NUM_THREADS", previous_.c_str(), 1);
    } else {
      ::unsetenv("OMP_NUM_THREADS");
    }
  }
  OmpNumThreads(const OmpNumThreads&) = delete;
  OmpNumThreads& operator=(const OmpNumThreads&) = delete;

 private:
  std::string previous_;
  bool had_ = false;
};

TEST_CASE("threads 0 follows OMP_NUM_THREADS") {
  RunConfig config = default_config();
  config.threads = 0;
  {
    OmpNumThreads env(nullptr);
    CHECK(resolved_threads(config) == hardware_threads());
  }
  {
    OmpNumThreads env("3");
    CHECK(resolved_threads(config) == 3);
    config.threads = 2;  // an explicit count wins
    CHECK(resolved_threads(config) == 2);
    config.threads = 0;
    TempDir dir("omp");
    auto args = tiny_run(dir, "r", 1);
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "--threads") args[i + 1] = std::string(1, '0');
    }
    const auto result = run(args);
    REQUIRE_MESSAGE(result.status == 0, result.err);
    CHECK(result.out.find("threads: 3\n") != std::string::npos);
  }
  {
    OmpNumThreads env(" 5,2");  // nested levels: the first is ours
    CHECK(resolved_threads(config) == 5);
  }
  for (const char* bad : {"abc", "0", "-4", "", "99999999999999999999"}) {
    OmpNumThreads env(bad);
    CHECK_THROWS_WITH_AS(resolved_threads(config), doctest::Contains("OMP_NUM_THREADS: '"),
                         ConfigError);
    TempDir dir("omp-bad");
    const auto result = run({"train", "--threads", "0", "--output-dir", dir.str()});
    CHECK(result.status == 1);
    CHECK(result.err.find("error: OMP_NUM_THREADS: '") == 0);
    CHECK(std::filesystem::is_empty(dir.path()));
  }
}

}  // namespace
}  // namespace strand::cli
