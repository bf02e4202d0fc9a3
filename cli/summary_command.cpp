// Model table for a config without touching data (except records with window 0, whose input
// length is the records' length).
#include "cli/summary_command.h"

#include <fmt/format.h>

#include "cli/data_builder.h"
#include "cli/model_builder.h"

namespace strand::cli {

std::string model_summary(const RunConfig& config) {
  validate_numbers(config);
  int64_t length =
      config.data.source == "simulated" ? config.data.simulated.length : config.data.files.window;
  if (length <= 0) length = build_run_data(config).length;
  manual_seed(config.seed);
  const std::shared_ptr<Sequential> model = build_model(config.model, length);
  freeze_layers(*model, config.freeze);
  return fmt::format("input: ({}) base codes\n{}", length, model->summary({length}));
}

}  // namespace strand::cli
