// The scoring calls' batch size and thread count rule (app/pass_options.h): one check for the
// CLI's --batch-size and --threads and the Python API's batch_size and threads.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "app/config_error.h"
#include "app/pass_options.h"
#include "data/loader/loader_config.h"

using strand::app::ConfigError;
using strand::app::PassOptionNames;
using strand::app::PassOptions;

namespace {

// The message validate() throws for `options` named by `names`, or "" when it accepts them.
std::string refusal(const PassOptions& options, const PassOptionNames& names = {}) {
  try {
    options.validate(names);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("pass options: batch size 0 is refused naming the flag, or Python's argument") {
  const PassOptions zero{.batch_size = 0};
  CHECK(refusal(zero) == "--batch-size: must be in [1, 1048576], got 0");
  CHECK(refusal(zero, PassOptionNames::keyword_names()) ==
        "batch_size: must be in [1, 1048576], got 0");
  CHECK(refusal({.batch_size = strand::data::kMaxBatchSize + 1}).starts_with("--batch-size: "));
}

TEST_CASE("pass options: a thread count outside [1, the cap] is refused naming it") {
  CHECK(refusal({.threads = 0}).starts_with("--threads: must be in [1, "));
  CHECK(refusal({.threads = -3}, PassOptionNames::keyword_names()).starts_with("threads: "));
  CHECK(refusal({.threads = 1000000}).starts_with("--threads: "));
}

TEST_CASE("pass options: the defaults, one thread and the largest batch are accepted") {
  CHECK(refusal({}).empty());
  CHECK(refusal({.batch_size = strand::data::kMaxBatchSize, .threads = 1}).empty());
  CHECK(refusal({.batch_size = 1, .threads = std::nullopt}).empty());
}
