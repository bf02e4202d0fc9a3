// The dense Conv1D engine of the CUDA backend: cuDNN plans, and the choice between strand's own
// kernels and cuDNN per shape. The Conv1D adapters (ops/cuda/conv1d.cpp) run every dense pass
// through run_dense_conv. cuDNN's plans live in conv_engine.cpp, the choices in
// conv_selection.cpp.
//
// Policy kAuto (the default; STRAND_CUDA_CONV=auto|own|cudnn overrides it at start-up): the
// first call of a Conv1D pass (forward, backward-input or backward-weight, dense or one-hot)
// with a new shape/params/dtype chooses an implementation and keeps it for the process:
//   - cuDNN untimed where strand's kernel cannot win: a pass of more than kOwnHopelessMacs
//     multiply-adds (strand's kernels run a thread per output; Basset's second layer took
//     24 ms a backward-weight pass against cuDNN's 0.6 ms), or a shape whose kernel lost to
//     cuDNN by 4x or more at another batch size (in this process, or in adopted plans);
//   - else both, timed with CUDA events (cuDNN one warm-up and three timed runs; strand's
//     kernel one timed run, three more unless that one was already far slower), the faster
//     kept.
// The same call also chooses, on scratch buffers, the same pass at every batch size the run
// announced (plan_batch_sizes: an epoch's last batch, the validation batches), and builds
// their cuDNN plans, so that fit()'s warm-up step leaves no choice for later steps. cuDNN takes
// part only for float32 with symmetric padding, in a build with cuDNN. In deterministic mode
// (tensor/determinism.h) nothing is timed: cuDNN runs with only the algorithms it reports as
// deterministic, and strand's kernels (deterministic too) only where cuDNN offers none for the
// shape. During a CUDA graph capture nothing is chosen: a shape met for the first time there
// is an error (run the step once before capturing it, as fit's warm-up does), never a silent
// fallback to the slow kernels. cuDNN's descriptors, algorithms and workspace are kept per
// shape (a plan), not rebuilt per call. The one-hot passes give cuDNN the codes expanded to a
// dense one-hot; the fused Conv1D+ReLU+GlobalMaxPool ops always use strand's own kernels.
//
// Every choice and cuDNN algorithm can be exported and adopted (export_conv_plans,
// adopt_conv_plans; tensor/conv_plan_table.h): a run directory keeps them, so that a resumed
// or repeated run on the same GPU and cuDNN skips the timing and cuDNN's search.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "kernels/conv1d_geometry.h"
#include "tensor/conv_plan_table.h"

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

/// The device operands of one pass, in the pass's order (bias: (O) or null, forward passes):
///   kForward               a = x (B, C, L),         b = w (O, C, K)  -> out = y (B, O, L_out)
///   kBackwardInput         a = dy (B, O, L_out),    b = w            -> out = dx (B, C, L)
///   kBackwardWeight        a = dy (B, O, L_out),    b = x (B, C, L)  -> out = dw (O, C, K)
///   kOneHotForward         a = codes (B, L) uint8,  b = w            -> out = y
///   kOneHotBackwardWeight  a = dy (B, O, L_out),    b = codes        -> out = dw (O, 4, K)
struct ConvOperands {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* bias = nullptr;
  void* out = nullptr;
};

/// One implementation of a pass: runs geometry `g` on `operands` (on the device's stream).
/// The engine calls it with the caller's operands, and with scratch ones of another batch size
/// when it plans that size.
using ConvRunner =
    std::function<void(const kernels::Conv1DGeometry& g, const ConvOperands& operands)>;

/// Runs one Conv1D pass of geometry `g` on `device`: `own` (strand's kernel) or `library`
/// (cuDNN through the plan of this shape) per the policy above. `symmetric_padding`: pad_left
/// == pad_right (cuDNN needs it).
void run_dense_conv(ConvPass pass, const kernels::Conv1DGeometry& g, bool symmetric_padding,
                    DType dtype, Device device, const ConvOperands& operands, const ConvRunner& own,
                    const ConvRunner& library);

/// Past this many multiply-adds (B * O * L_out * C * K) in one pass strand's kernel is not timed
/// against cuDNN: it cannot win there (see the header comment).
inline constexpr double kOwnHopelessMacs = 1073741824.0;  // 2^30

/// Batch sizes this process will run besides the first one a shape is met with (see the
/// header comment); `backward`: training sizes (every pass), else forward passes only. Adds
/// to the sizes given before.
void plan_batch_sizes(const std::vector<int64_t>& sizes, bool backward);
/// Forgets the sizes of plan_batch_sizes.
void clear_planned_batch_sizes();

/// Every choice (and, through export_cudnn_algorithms, every cuDNN algorithm) this process
/// holds, made or adopted, with `device`'s identity.
ConvPlanTable export_conv_plans(Device device);
/// Adopts `table`'s choices and algorithms when it was made on a device like `device`;
/// returns an empty string, or why not (another GPU or cuDNN). Choices already made win.
std::string adopt_conv_plans(const ConvPlanTable& table, Device device);

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
/// where cuDNN cannot run the shape). Clears remembered and adopted choices and algorithms.
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
/// Whether cuDNN can run a pass of `g` in `dtype` (float32, symmetric padding, int sizes).
bool cudnn_can_run(const kernels::Conv1DGeometry& g, DType dtype, bool symmetric_padding);
/// Whether the cuDNN plan of `g` on `device` (in the current mode) has chosen its algorithm
/// for `pass` already.
bool cudnn_planned(ConvPass pass, const kernels::Conv1DGeometry& g, Device device);
/// cuDNN's version (cudnnGetVersion()); 0 in a build without cuDNN.
int64_t cudnn_version();
/// The cuDNN algorithms of every plan (and those adopted but not yet used), for export.
std::vector<ConvAlgorithmRecord> export_cudnn_algorithms();
/// Algorithms to use instead of the heuristics' or the search's for plans built later
/// (a plan checks that cuDNN supports each for its shape, else chooses as usual).
void adopt_cudnn_algorithms(const std::vector<ConvAlgorithmRecord>& algorithms);
/// Forgets the adopted algorithms (the plans built keep theirs).
void clear_adopted_cudnn_algorithms();
/// The most workspace cuDNN's timed search may use: 256 MiB, or half the free device memory
/// when that is less.
size_t find_workspace_limit(size_t free_bytes);

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
