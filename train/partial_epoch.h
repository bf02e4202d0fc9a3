// PartialEpoch: where fit() stopped part-way through an epoch when asked to (a signal), with
// the epoch's training figures so far, stored in the `last` checkpoint's metadata so that a
// resume finishes that epoch with the same steps and the same logged loss and accuracy.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace strand::train {

/// The first `steps` steps of epoch `epoch` are done; the rest of it is not.
struct PartialEpoch {
  /// The epoch in progress, 0-based (the epochs before it are complete).
  int64_t epoch = 0;
  /// Its steps already taken, in [0, steps per epoch].
  int64_t steps = 0;
  /// Optimizer steps taken in total, these included.
  int64_t global_step = 0;
  /// Sum over those steps of batch loss x batch size (every rank's).
  double loss_sum = 0.0;
  /// Examples trained on in those steps.
  int64_t samples = 0;
  /// Labelled examples among them the model classified right, for the training accuracy.
  int64_t correct = 0;
  /// Labelled examples among them.
  int64_t labelled = 0;
  /// Seconds spent on those steps.
  double seconds = 0.0;
};

/// Checkpoint metadata of `partial`: epochs_completed (= epoch), global_step, steps_in_epoch and
/// partial_epoch.* (numbers in shortest round-trip form, so they read back exactly).
std::map<std::string, std::string> partial_epoch_metadata(const PartialEpoch& partial);

/// The PartialEpoch of a checkpoint written mid-epoch, nullopt for one written at the end of an
/// epoch (no steps_in_epoch). Throws Error naming the key and its text for a value that is not
/// a whole number in range.
std::optional<PartialEpoch> read_partial_epoch(const std::map<std::string, std::string>& metadata);

}  // namespace strand::train
