// The scoring calls' batch size and thread count rule (app/pass_options.h).
#include "app/pass_options.h"

#include "app/config_error.h"
#include "app/config_keys.h"
#include "core/value_range.h"
#include "data/loader/loader_config.h"

namespace strand::app {

int64_t default_explain_batch(const std::string& method) { return method == "ism" ? 256 : 64; }

PassOptionNames PassOptionNames::keyword_names() {
  return {.batch_size = "batch_size", .threads = "threads"};
}

void PassOptions::validate(const PassOptionNames& names) const {
  require_in(names.batch_size, batch_size, data::loader_ranges::kBatchSize, "");
  if (!threads) return;
  const std::string problem = thread_count_problem(names.threads, *threads);
  if (!problem.empty()) throw ConfigError(problem);
}

}  // namespace strand::app
