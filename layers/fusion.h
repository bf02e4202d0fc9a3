// Layer fusion: runs of layers that one fused op computes with the results of the unfused
// chain, so the intermediate activation is never written and read back:
//   Conv1D -> ReLU -> GlobalMaxPool1D   conv1d_relu_max (the activation map never exists)
//   Conv1D -> ReLU                      conv1d_relu (ReLU where the bias is added; its mask
//                                       applied per sample inside the conv's backward pass)
//   BatchNorm1D -> ReLU -> MaxPool1D    batch_norm_relu_max_pool on a GPU (the normalised
//                                       activation never exists; the statistics in one read);
//                                       on the CPU, batch_norm_relu then max_pool1d (the CPU's
//                                       fused op is that composition: nothing to gain)
//   BatchNorm1D -> ReLU                 batch_norm_relu (one pass each way instead of two)
// The longest match wins. Sequential fuses runs of consecutive layers; Graph fuses runs of
// nodes that each read only the one before. Both go through these two functions.
#pragma once

#include <cstddef>
#include <span>

#include "autograd/var.h"
#include "layers/layer.h"

namespace strand {

/// The length of the fused run that starts at run[0] (run holds the layers that would follow,
/// in order): 3 or 2 for the runs above, else 1 (no fusion). The same on every device.
size_t fused_run_length(std::span<Layer* const> run);

/// The output of the first `length` layers of `run` (a length fused_run_length() returned) on
/// `x`, through the fused kernel.
Var forward_fused_run(std::span<Layer* const> run, size_t length, const Var& x);

}  // namespace strand
