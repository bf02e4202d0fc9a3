// Presets: the field's standard models with their published hyper-parameters, each a config
// file in configs/ (reference, basset, deepsea, bpnet, chrombpnet_bias, chrombpnet; provenance in
// configs/PRESETS.md) that the program carries (embedded at build time), so `strand train --model
// basset` works from any directory. A config's "preset" key makes the preset's config the base
// under the file's keys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/model_spec.h"

namespace strand::app {

/// One preset.
struct Preset {
  std::string name;     ///< "basset"
  std::string summary;  ///< one line: model, data and recipe
  /// The data sizes it was published with: what `strand summary --model NAME` shows when no
  /// data files are given.
  DataDimensions published;
  std::string_view config_text;  ///< configs/<name>.json
};

/// Every preset, in the order `strand train --help` lists them.
const std::vector<Preset>& presets();

/// The preset called `name`, or nullptr.
const Preset* find_preset(std::string_view name);

/// The names of the presets, for messages and config choices.
std::vector<std::string> preset_names();

/// configs/<name>.json's text as built into the program (generated from configs/ by
/// app/CMakeLists.txt); empty for an unknown name.
std::string_view preset_config_text(std::string_view name);

}  // namespace strand::app
