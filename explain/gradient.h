// Gradient attributions, the cheap baselines: the target's gradient with respect to the one-hot
// input (saliency: a value for every letter at every position), and input x gradient (the
// gradient at the letters present).
#pragma once

#include <cstdint>

#include "explain/target.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::explain {

/// Options of gradient() and input_x_gradient().
struct GradientOptions {
  Target target{};           ///< what is explained
  int64_t batch_size = 256;  ///< sequences per pass
};

/// d target / d onehot(x) for each sequence of `codes` ((N, L) uint8): (N, 4, L) float. The
/// model runs in evaluation mode with its parameters frozen (both restored).
Tensor gradient(Model& model, const Tensor& codes, const GradientOptions& options);

/// gradient() times the one-hot input: (N, 4, L), zero but at the letters present.
Tensor input_x_gradient(Model& model, const Tensor& codes, const GradientOptions& options);

}  // namespace strand::explain
