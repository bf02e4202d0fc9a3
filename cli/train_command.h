// `strand train`: its flags that are not config keys, and the command that prints, trains or
// resumes a run (the training run itself is the application layer's, app/training_run.h).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "app/config_keys.h"
#include "app/config_source.h"
#include "app/training_run.h"

namespace strand::cli {

/// The flags of `strand train` that are not config keys: this invocation's knobs, --resume and
/// --print-config.
struct TrainFlags {
  app::TrainOptions run;
  std::string resume;  ///< a run directory to continue; empty: a new run
  bool print_config = false;
};

/// The rows of TrainFlags (--run-name, --resume, --stop-after-epochs, --signal-after-steps,
/// --print-config).
const std::vector<app::ConfigKey>& train_keys();

/// `strand train`: the config of `source` and `overrides` printed (--print-config), trained
/// (run_train) or, with flags.resume, continued (resume_train, which takes only --epochs and
/// --threads). Returns the exit status.
int run_train_command(const app::ConfigSource& source, const app::ConfigOverrides& overrides,
                      const TrainFlags& flags, std::ostream& out);

}  // namespace strand::cli
