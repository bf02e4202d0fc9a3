// Choosing between strand's own CUDA Conv1D kernels and cuDNN, per shape.
//
// Policy kAuto (the default; STRAND_CUDA_CONV=auto|own|cudnn overrides it at start-up): the
// first call of a dense Conv1D op (forward, backward-input or backward-weight) with a new
// shape/params/dtype runs both implementations (one warm-up and three timed runs each, CUDA
// events) and keeps the faster for that shape from then on. cuDNN takes part only for float32
// with symmetric padding, in a build with cuDNN; during CUDA graph capture nothing is timed
// (an unmeasured shape uses strand's kernel). In deterministic mode (tensor/determinism.h)
// nothing is timed and strand's kernels run, unless kCudnn is forced, which then uses only the
// algorithms cuDNN reports as deterministic. cuDNN's descriptors, algorithms and workspace are
// kept per shape (a plan), not rebuilt per call. The one-hot and fused ops always use strand's own
// kernels (cuDNN has no gather convolution).
#pragma once

#include <string>
#include <vector>

namespace strand::cuda {

enum class ConvAlgorithm { kAuto, kOwn, kCudnn };

/// Forces an implementation for every later dense Conv1D call (kCudnn falls back to kOwn
/// where cuDNN cannot run the shape). Clears remembered choices.
void set_conv_algorithm(ConvAlgorithm algorithm);
ConvAlgorithm conv_algorithm();
/// True when this build links cuDNN.
bool cudnn_available();

/// One remembered choice: op ("forward", "backward_input", "backward_weight"), shape key,
/// the chosen implementation ("own" or "cudnn") and the measured milliseconds (negative
/// where not measured).
struct ConvChoice {
  std::string op;
  std::string shape;
  std::string chosen;
  double own_ms = -1.0;
  double cudnn_ms = -1.0;
};
std::vector<ConvChoice> conv_choices();

}  // namespace strand::cuda
