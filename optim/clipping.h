// Gradient clipping by global norm and the max-norm weight constraint (Basset constrains its
// weights to norm 7). Both run on the parameters' device with tensor ops and read nothing back
// to the host, so a GPU step stays free of synchronisation.
#pragma once

#include <vector>

#include "autograd/var.h"

namespace strand {

/// Scales every gradient by max_norm / max(total_norm, max_norm), total_norm being the L2 norm
/// of all gradients together (torch.nn.utils.clip_grad_norm_): gradients are unchanged when
/// their norm is within max_norm. Parameters without a gradient are skipped. Returns the total
/// norm before clipping, a 0-d float64 tensor on the parameters' device (undefined when no
/// parameter has a gradient). Throws strand::Error when max_norm <= 0.
Tensor clip_grad_norm(const std::vector<Var>& parameters, double max_norm);

/// Rescales each slice weight[o, ...] (an output unit's incoming weights: a Conv1D filter, a
/// Dense row) whose L2 norm exceeds max_norm down to max_norm (torch.renorm(w, 2, 0, max_norm),
/// Keras's MaxNorm), in place. Throws strand::Error when max_norm <= 0 or weight is 0-d.
void apply_max_norm(const Var& weight, double max_norm);

}  // namespace strand
