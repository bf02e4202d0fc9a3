// Layer fusion: runs of layers that one kernel computes without materialising what passes
// between them. Sequential fuses runs of consecutive layers; Graph fuses runs of nodes that each
// read only the one before. Today's run: Conv1D -> ReLU -> GlobalMaxPool1D (one-hot or dense
// input; same results as the unfused chain, see kernels/cpu/conv1d_onehot.h).
#pragma once

#include <cstddef>
#include <span>

#include "autograd/var.h"
#include "layers/layer.h"

namespace strand {

/// The length of the fused run that starts at run[0] (run holds the layers that would follow,
/// in order): 3 for Conv1D -> ReLU -> GlobalMaxPool1D, else 1 (no fusion).
size_t fused_run_length(std::span<Layer* const> run);

/// The output of the first `length` layers of `run` (a length fused_run_length() returned) on
/// `x`, through the fused kernel.
Var forward_fused_run(std::span<Layer* const> run, size_t length, const Var& x);

}  // namespace strand
