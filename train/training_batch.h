// TrainingBatch: a data::Batch seen as tensors, without copying (the tensors keep the batch's
// storage alive).
#pragma once

#include "data/batch.h"
#include "tensor/tensor.h"

namespace strand::train {

struct TrainingBatch {
  Tensor codes;       // (B, L) uint8 base codes
  Tensor labels;      // (B, T) float32
  Tensor label_mask;  // (B, T) float32, 1 = valid label, 0 = ambiguous
  int64_t size = 0;

  /// The same batch on `device` (itself when already there): the model's inputs and targets
  /// must live where its parameters do.
  TrainingBatch to(Device device) const;
};

TrainingBatch as_tensors(const data::Batch& batch);

}  // namespace strand::train
