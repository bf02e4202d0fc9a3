// PartialEpoch to and from checkpoint metadata strings.
#include "train/partial_epoch.h"

#include <cmath>

#include "core/error.h"
#include "core/parse_number.h"
#include "fmt/format.h"

namespace strand::train {
namespace {

using Metadata = std::map<std::string, std::string>;

const std::string& text_of(const Metadata& metadata, const std::string& key) {
  auto it = metadata.find(key);
  STRAND_CHECK(it != metadata.end(), "checkpoint metadata lacks '{}' (steps_in_epoch is set)", key);
  return it->second;
}

int64_t count_of(const Metadata& metadata, const std::string& key) {
  const std::string& text = text_of(metadata, key);
  const std::optional<int64_t> value = parse_int64(text);
  STRAND_CHECK(value && *value >= 0, "checkpoint metadata '{}' is '{}', expected an integer >= 0",
               key, text);
  return *value;
}

double number_of(const Metadata& metadata, const std::string& key) {
  const std::string& text = text_of(metadata, key);
  const std::optional<double> value = parse_double(text);
  STRAND_CHECK(value && std::isfinite(*value),
               "checkpoint metadata '{}' is '{}', expected a finite number", key, text);
  return *value;
}

}  // namespace

Metadata partial_epoch_metadata(const PartialEpoch& partial) {
  return {{"epochs_completed", std::to_string(partial.epoch)},
          {"global_step", std::to_string(partial.global_step)},
          {"steps_in_epoch", std::to_string(partial.steps)},
          {"partial_epoch.loss_sum", fmt::format("{}", partial.loss_sum)},
          {"partial_epoch.samples", std::to_string(partial.samples)},
          {"partial_epoch.correct", std::to_string(partial.correct)},
          {"partial_epoch.labelled", std::to_string(partial.labelled)},
          {"partial_epoch.seconds", fmt::format("{}", partial.seconds)}};
}

std::optional<PartialEpoch> read_partial_epoch(const Metadata& metadata) {
  if (metadata.find("steps_in_epoch") == metadata.end()) return std::nullopt;
  PartialEpoch partial;
  partial.epoch = count_of(metadata, "epochs_completed");
  partial.global_step = count_of(metadata, "global_step");
  partial.steps = count_of(metadata, "steps_in_epoch");
  partial.loss_sum = number_of(metadata, "partial_epoch.loss_sum");
  partial.samples = count_of(metadata, "partial_epoch.samples");
  partial.correct = count_of(metadata, "partial_epoch.correct");
  partial.labelled = count_of(metadata, "partial_epoch.labelled");
  partial.seconds = number_of(metadata, "partial_epoch.seconds");
  STRAND_CHECK(partial.correct <= partial.labelled && partial.labelled <= partial.samples &&
                   partial.steps <= partial.global_step,
               "checkpoint metadata of the partial epoch disagrees with itself: {} correct of {} "
               "labelled of {} samples, {} steps in the epoch of {} in total",
               partial.correct, partial.labelled, partial.samples, partial.steps,
               partial.global_step);
  return partial;
}

}  // namespace strand::train
