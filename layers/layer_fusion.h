// Layer fusion: short runs of layers that one fused op computes with the results of the
// unfused chain, so the intermediate activation is never written and read back:
//   Conv1D -> ReLU -> GlobalMaxPool1D   conv1d_relu_max (the activation map never exists)
//   Conv1D -> ReLU                      conv1d_relu (ReLU where the bias is added; its mask
//                                       applied per sample inside the conv's backward pass)
//   BatchNorm1D -> ReLU                 batch_norm_relu (one pass each way instead of two)
// The first match wins, in this order.
// The matching sits here, apart from Sequential, so any container of chained layers can use it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "layers/layer.h"

namespace strand {

/// A fused run's output and how many layers it stood for (0: no pattern matched).
struct FusedRun {
  Var output;
  size_t layers = 0;
};

/// If a fusable run starts at chain[0], applies it to x; otherwise returns {Var(), 0} and the
/// caller runs chain[0] itself.
FusedRun run_fused(std::span<const std::shared_ptr<Layer>> chain, const Var& x);

}  // namespace strand
