// DataLoader worker threads that cannot be started: a clean DataError, the started workers
// joined, never std::terminate ("terminate called without an active exception").
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <memory>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/loader/data_loader.h"
#include "data/sources/array_source.h"
#include "support/child_process.h"
#include "test_helpers.h"

namespace strand::data {
namespace {

TEST_CASE("loader threads that cannot start under a memory limit fail cleanly") {
  if (strand::testing::kSanitized)
    STRAND_SKIP("address-space limits do not combine with sanitizers");
  // Runs in a child: the address-space limit must not hold the test program, and before the
  // fix the child died of SIGABRT.
  const strand::testing::ChildResult child = strand::testing::run_in_child([] {
    auto source = std::make_shared<ArraySource>(std::vector<uint8_t>(64 * 32, 0), 64,
                                                std::vector<float>(32, 0.0F), 1);
    // Each thread reserves a stack of several MiB; 64 MiB of headroom runs out long before
    // 1000 threads.
    const int64_t size = strand::testing::proc_status_kib("VmSize") * 1024;
    const auto cap = static_cast<rlim_t>(size + (int64_t{64} << 20));
    const rlimit limit{cap, cap};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) return std::string("setrlimit failed");
    LoaderOptions options;
    options.sampler.batch_size = 4;
    options.loader_threads = 1000;
    try {
      DataLoader loader(source, options);
    } catch (const DataError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  });
  REQUIRE_MESSAGE(child.exited, child.describe());
  CHECK_MESSAGE(child.exit_code == 0, child.describe());
  CHECK_MESSAGE(child.output.rfind("DataLoader: could not start worker thread ", 0) == 0,
                child.output);
  CHECK(child.output.find(" of 1000 (") != std::string::npos);
  CHECK(child.output.find("use fewer loader threads") != std::string::npos);
}

}  // namespace
}  // namespace strand::data
