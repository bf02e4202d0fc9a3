// TrainingBatch: a data::Batch seen as tensors, without copying (the tensors keep the batch's
// storage alive).
#pragma once

#include "data/loader/batch.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::train {

/// One batch as tensors: B examples of length L with T targets.
struct TrainingBatch {
  /// (B, L) uint8 base codes.
  Tensor codes;
  /// (B, T) float32 labels.
  Tensor labels;
  /// (B, T) float32, 1 = valid label, 0 = ambiguous.
  Tensor label_mask;
  /// (B, S, Lp) float32 per-position counts (profile targets); undefined when the data has none.
  Tensor profile;
  /// (B, Sc, L) float32 control signal, a model input ("control"); undefined when none.
  Tensor control;
  /// B, the number of examples.
  int64_t size = 0;

  /// The same batch on `device` (itself when already there): the model's inputs and targets
  /// must live where its parameters do.
  TrainingBatch to(Device device) const;
  /// The model's inputs: the codes as "sequence", the control signal (if any) as "control".
  ModelInputs inputs() const;
};

/// CPU tensors over `batch`: codes and labels are views (keeping the batch's storage alive),
/// the uint8 label mask is converted to a float32 copy.
TrainingBatch as_tensors(const data::Batch& batch);

/// The batch on `device`, ready for a training step. On a GPU the uint8 mask travels as is
/// and is converted there (no host work); on the CPU this is as_tensors().
TrainingBatch as_device_tensors(const data::Batch& batch, Device device);

}  // namespace strand::train
