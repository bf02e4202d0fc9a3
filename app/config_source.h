// Where the config of a run's command (train, inspect, summary) comes from besides its flags: a
// config file (--config) and a preset (--model), with their rows of the key table.
#pragma once

#include <string>
#include <vector>

#include "app/config_keys.h"
#include "app/run_config.h"

namespace strand::app {

/// A command's config file and preset.
struct ConfigSource {
  std::string config;  ///< a JSON config file; empty: none
  std::string preset;  ///< a preset (configs/<name>.json) under the file; empty: none
};

/// --config (train, inspect, summary) and --model (train, summary), bound to ConfigSource.
const std::vector<ConfigKey>& config_source_keys();

/// The config of a command: the preset, then the file, then the flags (`overrides`).
RunConfig resolve_config(const ConfigSource& source, const ConfigOverrides& overrides);

}  // namespace strand::app
