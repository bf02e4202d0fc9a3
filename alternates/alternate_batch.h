// A batch of alternates: sequences that equal reference sequences but for a window of letters,
// the unit of work of the alternates engine (alternates/alternate_forward.h) and its strategies.
#pragma once

#include <cstdint>
#include <span>

#include "tensor/tensor.h"

namespace strand::alternates {

/// Columns [begin, end) of a sequence (empty when begin >= end).
struct ColumnRange {
  int64_t begin = 0;
  int64_t end = 0;
};

/// M alternates: alternate m equals reference row slots[m] except at columns [starts[m],
/// starts[m] + W), which read letters ((M, W) uint8 codes; an N is all-zero). Each window lies
/// inside the sequence. `changed`, when given (M ranges), says where inside its window each
/// alternate may differ from its reference (an empty range: nowhere); the fused strategy
/// recomputes those columns only.
struct AlternateBatch {
  std::span<const int64_t> slots;
  std::span<const int64_t> starts;
  Tensor letters;
  std::span<const ColumnRange> changed = {};
};

}  // namespace strand::alternates
