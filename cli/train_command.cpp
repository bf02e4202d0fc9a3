// `strand train`: the flags of one invocation, and --print-config, a new run or --resume.
#include "cli/train_command.h"

#include <fmt/format.h>

#include <optional>

#include "app/config_error.h"

namespace strand::cli {

using app::ConfigError;
using app::ConfigKey;
using app::ConfigOverrides;
using app::ConfigSource;
using app::field;
using app::kMaxCount;
using app::resolve_config;
using app::resume_train;
using app::run_train;
using app::RunConfig;
using app::to_json;
using app::validate_numbers;

const std::vector<ConfigKey>& train_keys() {
  const std::vector<std::string> train = {"train"};
  static const std::vector<ConfigKey> keys = {
      {.key = "run-name",
       .field = field<TrainFlags>([](auto& f) -> auto& { return f.run.run_name; }),
       .flag = "--run-name",
       .help = "Run directory name (default: date-time + seed)",
       .commands = train},
      {.key = "resume",
       .field = field<TrainFlags>([](auto& f) -> auto& { return f.resume; }),
       .flag = "--resume",
       .help = "Continue an interrupted run from RUN_DIR/checkpoints/last.safetensors with "
               "RUN_DIR/config.json (only --epochs and --threads may change)",
       .commands = train},
      {.key = "stop-after-epochs",
       .field = field<TrainFlags>([](auto& f) -> auto& { return f.run.stop_after_epochs; }),
       .range = IntRange{-kMaxCount, kMaxCount},
       .range_note = "negative: off",
       .flag = "--stop-after-epochs",
       .help = "Testing aid: stop as if killed early in epoch N+1, after N epochs' checkpoints "
               "(then --resume)",
       .commands = train},
      {.key = "signal-after-steps",
       .field = field<TrainFlags>([](auto& f) -> auto& { return f.run.signal_after_steps; }),
       .range = IntRange{-kMaxCount, kMaxCount},
       .range_note = "negative: off",
       .flag = "--signal-after-steps",
       .help = "Testing aid: raise SIGTERM in this process after global step N (at an epoch's "
               "end: after its validation), as a preempting scheduler would (then --resume)",
       .commands = train},
      {.key = "print-config",
       .field = field<TrainFlags>([](auto& f) -> auto& { return f.print_config; }),
       .flag = "--print-config",
       .help = "Print the resolved config as JSON and exit without training",
       .commands = train},
  };
  return keys;
}

int run_train_command(const ConfigSource& source, const ConfigOverrides& overrides,
                      const TrainFlags& flags, std::ostream& out) {
  if (!flags.resume.empty()) {
    for (const std::string& key : overrides.keys()) {
      if (key != "epochs" && key != "threads") {
        throw ConfigError(fmt::format(
            "--resume continues the run's own config.json; {} cannot change (only --epochs and "
            "--threads can)",
            key));
      }
    }
    if (!source.config.empty() || !flags.run.run_name.empty() || !source.preset.empty()) {
      throw ConfigError("--resume takes neither --config, --model nor --run-name");
    }
    return resume_train(flags.resume, overrides.int_value("epochs"), overrides.int_value("threads"),
                        flags.run, out)
        .exit_code;
  }
  const RunConfig config = resolve_config(source, overrides);
  if (flags.print_config) {
    // Every number checked as train checks it: no null or out-of-range value is printed.
    validate_numbers(config);
    out << to_json(config).dump(2) << "\n";
    return 0;
  }
  return run_train(config, flags.run, out).exit_code;
}

}  // namespace strand::cli
