// Tasks whose labels leave their figures undefined.
#include "app/unscored_tasks.h"

#include <fmt/format.h>

#include <cstdint>

namespace strand::app {

std::vector<std::pair<std::string, std::string>> unscorable_tasks(
    const data::SequenceSource& source, data::LabelKind kind) {
  const int64_t tasks = source.num_targets();
  std::vector<int64_t> valid(static_cast<size_t>(tasks), 0), positive(valid);
  std::vector<float> first(static_cast<size_t>(tasks), 0.0F);
  std::vector<uint8_t> varies(static_cast<size_t>(tasks), 0);
  std::vector<float> labels(static_cast<size_t>(tasks));
  std::vector<uint8_t> mask(static_cast<size_t>(tasks));
  for (int64_t i = 0; i < source.size(); ++i) {
    source.labels(i, labels.data(), mask.data());
    for (size_t t = 0; t < static_cast<size_t>(tasks); ++t) {
      if (!mask[t]) continue;
      if (valid[t]++ == 0) first[t] = labels[t];
      if (labels[t] != first[t]) varies[t] = 1;
      if (labels[t] > 0.5F) ++positive[t];
    }
  }
  const std::vector<std::string> names = source.task_names();
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t t = 0; t < static_cast<size_t>(tasks); ++t) {
    std::string why;
    if (valid[t] == 0) {
      why = "every label is missing (NA, nan or .)";
    } else if (kind == data::LabelKind::kBinary && positive[t] == 0) {
      why = fmt::format("no positive label (its {} label(s) are all 0)", valid[t]);
    } else if (kind == data::LabelKind::kBinary && positive[t] == valid[t]) {
      why = fmt::format("no negative label (its {} label(s) are all 1)", valid[t]);
    } else if (kind == data::LabelKind::kReal && !varies[t]) {
      why = fmt::format("its {} label(s) are all {} (a correlation needs two values)", valid[t],
                        first[t]);
    }
    if (!why.empty()) out.emplace_back(names[t], std::move(why));
  }
  return out;
}

}  // namespace strand::app
