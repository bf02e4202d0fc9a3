// One forward pass of a trained model over a batch of base codes, for scoring rather than
// training: evaluation mode, no gradients, the chosen outputs as float32 CPU arrays. Variant
// scoring (variants/) runs every batch through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::train {

/// An output to return, and in which form.
struct OutputRequest {
  size_t index = 0;       ///< the model's output index
  bool activated = true;  ///< through its final activation (predictions), else before it
};

/// Runs `model` on `codes` ((B, L) uint8 base codes, on the CPU) in evaluation mode without
/// gradient recording, and returns the requested outputs, each (B, ...) float32, contiguous and
/// on the CPU. A model with a control input reads zeros there ((B, control_tracks, L)), as
/// chrombpnet's scorer feeds its bias inputs. The model's training flag is restored afterwards.
/// Throws strand::Error for an output index the model does not have.
std::vector<Tensor> forward_codes(Model& model, const Tensor& codes,
                                  std::span<const OutputRequest> outputs,
                                  int64_t control_tracks = 0);

}  // namespace strand::train
