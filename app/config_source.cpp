// The --config and --model rows, and a command's config resolved from them and its flags.
#include "app/config_source.h"

#include <fmt/format.h>

#include "app/presets.h"

namespace strand::app {
namespace {

// "A preset model ...:\n  reference: ...\n  basset: ...".
std::string preset_help() {
  std::string names;
  for (const Preset& p : presets()) names += fmt::format("\n  {}: {}", p.name, p.summary);
  return "A preset model with its published recipe, the base under --config and the flags:" + names;
}

}  // namespace

const std::vector<ConfigKey>& config_source_keys() {
  static const std::vector<ConfigKey> keys = {
      {.key = "config",
       .field = field<ConfigSource>([](auto& s) -> auto& { return s.config; }),
       .text = TextKind::kFile,
       .flag = "--config",
       .help = "JSON config file",
       .commands = kRunCommands},
      {.key = "model",
       .field = field<ConfigSource>([](auto& s) -> auto& { return s.preset; }),
       .choices = preset_names(),
       .flag = "--model",
       .help = preset_help(),
       .commands = {"train", "summary"}},
  };
  return keys;
}

RunConfig resolve_config(const ConfigSource& source, const ConfigOverrides& overrides) {
  RunConfig config = !source.config.empty() ? load_config_file(source.config, source.preset)
                     : !source.preset.empty()
                         ? parse_config(nlohmann::json{{"preset", source.preset}})
                         : default_config();
  apply_overrides(config, overrides);
  return config;
}

}  // namespace strand::app
