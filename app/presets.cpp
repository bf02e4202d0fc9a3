// The preset table; the config files' text comes from the generated presets_data.cpp.
#include "app/presets.h"

namespace strand::app {

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = [] {
    std::vector<Preset> out = {
        {"reference",
         "the DragoNN TAL1 experiment: Conv1D(16, 15)-ReLU-GlobalMaxPool1D-Dense(1), Adam 1e-3, "
         "simulated 500 bp data (the default run)",
         {.length = 500, .tasks = 1},
         {}},
        {"basset",
         "Basset (Kelley et al. 2016): 3 conv-BatchNorm-ReLU-MaxPool blocks, 2 x Dense(1000), "
         "600 bp, one sigmoid per task (164 published); RMSprop lr 0.002, momentum 0.98, "
         "max-norm 7",
         {.length = 600, .tasks = 164},
         {}},
        {"deepsea",
         "DeepSEA (Zhou & Troyanskaya 2015): conv 320/480/960 x 8 with pooling and dropout, "
         "Dense(925), 1000 bp, 919 published tasks; SGD momentum 0.9, weight decay 1e-6",
         {.length = 1000, .tasks = 919},
         {}},
        {"bpnet",
         "BPNet (Avsec et al. 2021, as bpnet-lite builds it): Conv1D(64, 21), 8 residual "
         "dilated convs, profile (width-75 conv) and counts heads; 2114 bp in, 1000 bp profile "
         "out; multinomial NLL + lambda x MSE of log counts (lambda = median counts / 10)",
         {.length = 2114, .tasks = 0, .profile_tracks = 2, .profile_length = 1000},
         {}},
        {"chrombpnet_bias",
         "ChromBPNet's bias model (Pampari et al., kundajelab/chrombpnet): BPNet with 128 filters "
         "and 4 dilated convs, 2114 bp in, 1000 bp out, one unstranded cut track; trained on "
         "non-peaks whose counts stay below data.bias_threshold_factor x the peaks' (--bias-peaks)",
         {.length = 2114, .tasks = 1, .profile_tracks = 1, .profile_length = 1000},
         {}},
        {"chrombpnet",
         "ChromBPNet: an accessibility BPNet (512 filters, 8 dilated convs) plus a frozen trained "
         "bias model (--bias-model RUN): profile logits added, counts by log-sum-exp; 2114 bp in, "
         "1000 bp out; scoring commands take --no-bias for the accessibility model alone",
         {.length = 2114, .tasks = 1, .profile_tracks = 1, .profile_length = 1000},
         {}},
    };
    for (Preset& preset : out) preset.config_text = preset_config_text(preset.name);
    return out;
  }();
  return table;
}

const Preset* find_preset(std::string_view name) {
  for (const Preset& preset : presets()) {
    if (preset.name == name) return &preset;
  }
  return nullptr;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& preset : presets()) names.push_back(preset.name);
  return names;
}

}  // namespace strand::app
