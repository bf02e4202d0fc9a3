// The dense Conv1D engine of the CUDA backend: cuDNN plans, and the choice between strand's own
// kernels and cuDNN per shape. The Conv1D adapters (ops/conv1d.cpp) run every dense pass
// through run_dense_conv.
//
// Policy kAuto (the default; STRAND_CUDA_CONV=auto|own|cudnn overrides it at start-up): the
// first call of a Conv1D pass (forward, backward-input or backward-weight, dense or one-hot)
// with a new shape/params/dtype runs both implementations (CUDA events: cuDNN one warm-up and
// three timed runs; strand's kernel one timed run, three more unless that one was already far
// slower) and keeps the faster for that shape from then on. A shape whose kernel lost to
// cuDNN by 4x or more at another batch size (an epoch's last, smaller batch) takes cuDNN
// untimed. cuDNN takes part only for float32
// with symmetric padding, in a build with cuDNN. In deterministic mode (tensor/determinism.h)
// nothing is timed: cuDNN runs with only the algorithms it reports as deterministic, and
// strand's kernels (deterministic too) only where cuDNN offers none for the shape. During a
// CUDA graph capture nothing is chosen: a shape met for the first time there is an error (run
// the step once before capturing it, as fit's warm-up does), never a silent fallback to the
// slow kernels. cuDNN's descriptors, algorithms and workspace are kept per shape (a plan), not
// rebuilt per call. The one-hot passes give cuDNN the codes expanded to a dense one-hot; the
// fused Conv1D+ReLU+GlobalMaxPool ops always use strand's own kernels.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "kernels/conv1d_geometry.h"

namespace strand::cuda {

/// The one-hot passes read uint8 codes: strand's gather kernels, or cuDNN on the codes
/// expanded to a dense (B, 4, L) float32 one-hot (ops::one_hot).
enum class ConvPass {
  kForward = 0,
  kBackwardInput = 1,
  kBackwardWeight = 2,
  kOneHotForward = 3,
  kOneHotBackwardWeight = 4
};

/// Runs one dense Conv1D pass of geometry `g` on `device`: `own` (strand's kernel) or `library`
/// (cuDNN through the plan of this shape) per the policy below, timing both on the first call
/// of a shape under kAuto. `symmetric_padding`: pad_left == pad_right (cuDNN needs it).
void run_dense_conv(ConvPass pass, const kernels::Conv1DGeometry& g, bool symmetric_padding,
                    DType dtype, Device device, const std::function<void()>& own,
                    const std::function<void()>& library);

/// The three passes through cuDNN's plan for `g` (float32, contiguous, on `device`'s stream).
/// Throw strand::Error in a build without cuDNN. The forward pass adds no bias.
void cudnn_conv_forward(const kernels::Conv1DGeometry& g, Device device, const void* x,
                        const void* w, void* y);
void cudnn_conv_backward_input(const kernels::Conv1DGeometry& g, Device device, const void* grad_y,
                               const void* w, void* grad_x);
void cudnn_conv_backward_weight(const kernels::Conv1DGeometry& g, Device device, const void* grad_y,
                                const void* x, void* grad_w);

enum class ConvAlgorithm { kAuto, kOwn, kCudnn };

/// Forces an implementation for every later dense Conv1D call (kCudnn falls back to kOwn
/// where cuDNN cannot run the shape). Clears remembered choices.
void set_conv_algorithm(ConvAlgorithm algorithm);
ConvAlgorithm conv_algorithm();
/// cuDNN's algorithm for each pass from timing its candidates on the shape's first call
/// (cudnnFind*AlgorithmEx, PyTorch's cudnn.benchmark) instead of its heuristics; off by
/// default, STRAND_CUDNN_FIND=1 turns it on at start-up. Never in deterministic mode. Setting
/// it clears remembered choices (plans are kept per setting).
void set_cudnn_find(bool on);
bool cudnn_find();
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
