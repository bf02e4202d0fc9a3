// early_stopping.monitor against the run's figures, with "did you mean" suggestions.
#include "app/monitor.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/edit_distance.h"
#include "app/run_config.h"
#include "train/metric_names.h"

namespace strand::app {
namespace {

constexpr size_t kClosestNames = 5;
constexpr size_t kTasksListed = 10;

// The `names` nearest `query` by edits (ties in the run's order).
std::vector<std::string> closest_names(const std::string& query,
                                       const std::vector<std::string>& names) {
  std::vector<std::pair<size_t, size_t>> ranked;  // (distance, position)
  for (size_t i = 0; i < names.size(); ++i) ranked.emplace_back(edit_distance(query, names[i]), i);
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> close;
  for (size_t i = 0; i < ranked.size() && i < kClosestNames; ++i) {
    close.push_back(names[ranked[i].second]);
  }
  return close;
}

// Every name, the per-task ones folded into "val_auroc/<task>" and the tasks listed once.
std::string describe_names(const std::vector<std::string>& names) {
  std::vector<std::string> listed, tasks;
  for (const std::string& name : names) {
    const size_t slash = name.find('/');
    if (slash == std::string::npos) {
      listed.push_back(name);
      continue;
    }
    const std::string pattern = name.substr(0, slash) + "/<task>";
    if (std::find(listed.begin(), listed.end(), pattern) == listed.end()) {
      listed.push_back(pattern);
    }
    const std::string task = name.substr(slash + 1);
    if (std::find(tasks.begin(), tasks.end(), task) == tasks.end()) tasks.push_back(task);
  }
  std::string text = fmt::format("{}", fmt::join(listed, ", "));
  if (!tasks.empty()) {
    const size_t shown = std::min(tasks.size(), kTasksListed);
    text +=
        fmt::format(" (<task>: {}{})",
                    fmt::join(std::vector<std::string>(tasks.begin(), tasks.begin() + shown), ", "),
                    tasks.size() > shown ? fmt::format(" and {} more", tasks.size() - shown) : "");
  }
  return text;
}

}  // namespace

MonitorChoice choose_monitor(const std::string& monitor, const std::vector<std::string>& training,
                             const std::vector<std::string>& evaluation, bool has_validation) {
  const std::vector<std::string> names = train::epoch_metric_names(training, evaluation);
  if (std::find(names.begin(), names.end(), monitor) == names.end()) {
    throw ConfigError(fmt::format(
        "early_stopping.monitor: '{}' is not a figure this run logs; closest: {}. The run logs "
        "{}",
        monitor, fmt::join(closest_names(monitor, names), ", "), describe_names(names)));
  }
  MonitorChoice choice{monitor, ""};
  if (!has_validation && monitor.starts_with("val_")) {
    const std::string trained = monitor.substr(4);
    const bool logged = std::find(training.begin(), training.end(), trained) != training.end();
    choice.key = logged ? trained : "loss";
    choice.note =
        fmt::format("no validation data: the best checkpoint follows the training {}", choice.key);
  }
  return choice;
}

}  // namespace strand::app
