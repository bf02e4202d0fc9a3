// Tasks a split cannot score: every label missing, or one class only (an auROC needs both), or
// a constant (a correlation needs two values). Found when the data is loaded, so that a run says
// which per-task figures will be undefined and why, instead of a mean over tasks that silently
// leaves them out.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "data/labels.h"
#include "data/sources/sequence_source.h"

namespace strand::app {

/// (task name, why) for every task of `source` whose labels cannot be scored as `kind` labels
/// are (kBinary: auROC/auPRC need a positive and a negative; kReal: Pearson/Spearman need two
/// different values), in task order: "every label is missing", "no positive label (its 40
/// labels are all 0)", ... Reads every sample's labels (held in memory).
std::vector<std::pair<std::string, std::string>> unscorable_tasks(
    const data::SequenceSource& source, data::LabelKind kind);

}  // namespace strand::app
