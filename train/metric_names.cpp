// Names of logged figures: the training pass's, the epoch log's order, losses, and key parts.
#include "train/metric_names.h"

#include <algorithm>

namespace strand::train {

std::vector<std::string> training_metric_names(const Objective& objective) {
  std::vector<std::string> names = {"loss"};
  if (objective.has_training_accuracy()) names.push_back("accuracy");
  names.insert(names.end(), {"learning_rate", "samples_per_second", "epoch_seconds"});
  return names;
}

std::vector<std::string> epoch_metric_names(const std::vector<std::string>& training,
                                            const std::vector<std::string>& evaluation) {
  std::vector<std::string> names = training;
  for (const std::string& key : evaluation) names.push_back("val_" + key);
  return names;
}

bool is_loss_name(const std::string& key) {
  // A task's name may hold anything ("auroc/gloss"), so only the part before it counts.
  const std::string name = key.substr(0, key.find('/'));
  return name.ends_with("loss");
}

MetricNameParts split_metric_name(const std::string& key, const std::vector<std::string>& outputs) {
  MetricNameParts parts;
  const size_t slash = key.find('/');
  std::string name = key.substr(0, slash);
  if (slash != std::string::npos) parts.task = key.substr(slash + 1);
  for (const std::string& output : outputs) {
    if (name.starts_with(output + "_") && output.size() > parts.output.size()) {
      parts.output = output;
    }
  }
  parts.metric = parts.output.empty() ? name : name.substr(parts.output.size() + 1);
  return parts;
}

std::vector<std::string> main_metric_names(const std::vector<std::string>& keys) {
  const auto has_per_task = [&](const std::string& stem) {
    return std::any_of(keys.begin(), keys.end(),
                       [&](const std::string& k) { return k.starts_with(stem + "/"); });
  };
  const auto present = [&](const std::string& k) {
    return std::find(keys.begin(), keys.end(), k) != keys.end();
  };
  // "P" + "mean_" + "X" repeats "P" + "X" when no "P" + "X/<task>" exists. Every place "mean_"
  // starts a word is tried, since an output's name may itself hold "mean_".
  const auto redundant_mean = [&](const std::string& key) {
    for (size_t at = key.find("mean_"); at != std::string::npos; at = key.find("mean_", at + 1)) {
      if (at > 0 && key[at - 1] != '_') continue;
      const std::string stem = key.substr(0, at) + key.substr(at + 5);
      if (present(stem) && !has_per_task(stem)) return true;
    }
    return false;
  };
  std::vector<std::string> main;
  for (const std::string& key : keys) {
    if (key.find('/') == std::string::npos && !redundant_mean(key)) main.push_back(key);
  }
  return main;
}

}  // namespace strand::train
