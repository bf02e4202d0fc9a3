// The flags of one command, from the key tables (app/config_keys.h): the rows that name the
// command, of its own options' tables (each bound to its options struct) and of the run config
// (collected as overrides). The same rows give the command's flags, its --help and its section
// of docs/config.md, so a command declares no flag by hand.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/config_keys.h"
#include "app/run_config.h"

namespace CLI {
class App;
}

namespace strand::cli {

/// Checks a command's own flag's value against its row before it is stored: the row's rule, and
/// a number's range: "--ratio: must be in (0, 1000], got 0". (Words and files are checked as
/// CLI11 reads them, as flag syntax.)
void check_flag_value(const app::ConfigKey& key, const app::ConfigValue& value);

/// One flag of a command: its row, what giving it does, and its default in words.
struct CommandFlag {
  const app::ConfigKey* key = nullptr;
  /// Sets the value the flag gives; throws ConfigError naming the flag for a bad value.
  std::function<void(app::ConfigValue)> set;
  std::string default_text;  ///< "" for the run config's keys (their table lists them)
  bool config = false;       ///< a key of the run config (its help says "(config: KEY)")
};

/// The flags of `command`, gathered from tables and declared on a CLI11 command.
class CommandFlags {
 public:
  explicit CommandFlags(std::string command) : command_(std::move(command)) {}

  /// The rows of `keys` that name the command, each setting its field of `options` (which must
  /// outlive the parse) once its value is checked against the row's range and rule.
  template <typename Options>
  CommandFlags& options(const std::vector<app::ConfigKey>& keys, Options& options) {
    const Options defaults{};
    for (const app::ConfigKey& key : keys) {
      if (!key.taken_by(command_) || !key.field.of<Options>()) continue;
      CommandFlag flag;
      flag.key = &key;
      flag.set = [&key, &options](app::ConfigValue value) {
        check_flag_value(key, value);
        key.field.set(options, std::move(value), key.flag);
      };
      flag.default_text =
          key.field.is_set(defaults) ? app::default_words(key.field.get(defaults)) : key.unset;
      flags_.push_back(std::move(flag));
    }
    return *this;
  }

  /// The run config's keys that name the command, each recorded in `overrides` (applied to the
  /// config by apply_overrides(), which checks them as a config file's keys).
  CommandFlags& config(app::ConfigOverrides& overrides);

  /// Records the flags given, in the order seen ("--n-pos"), in `given` (e.g. for simulate,
  /// which refuses the flags its simulation does not read).
  CommandFlags& record_given(std::vector<std::string>& given) {
    given_ = &given;
    return *this;
  }

  /// Declares every flag on `app`.
  void add_to(CLI::App* app) const;

  /// The flags as a Markdown table (flag, kind, default, values, meaning): the command's
  /// section of docs/config.md.
  std::string markdown() const;

  const std::vector<CommandFlag>& flags() const { return flags_; }

 private:
  std::string command_;
  std::vector<CommandFlag> flags_;
  std::vector<std::string>* given_ = nullptr;
};

/// A flag's --help text: its help, its words, and its default or config key.
std::string flag_help(const CommandFlag& flag);

}  // namespace strand::cli
