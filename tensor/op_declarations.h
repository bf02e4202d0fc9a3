// Every built-in op, declared once: its name and its kernel signature. Backends register a
// kernel per op (tensor/cpu/, kernels/cuda/); tensor/ops.cpp validates arguments and
// dispatches. Kernels receive defined tensors whose shapes, dtypes and devices the caller
// has already checked; outputs are contiguous and preallocated.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/optimizer_math.h"
#include "kernels/unary_math.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

/// The unary kinds and their formulas are defined once, in kernels/unary_math.h.
using UnaryOpKind = kernels::UnaryKind;
/// kMaximum: max(a, b) (NaN when either is NaN). kGreater: 1 where a > b, else 0 (a metric,
/// not differentiable: autograd never records it).
enum class BinaryOpKind : uint8_t { kAdd, kSub, kMul, kDiv, kMaximum, kGreater };

/// Parameters shared by the Conv1D kernels. Input length L, output length
/// L_out = (L + pad_left + pad_right - dilation * (K - 1) - 1) / stride + 1.
struct Conv1DParams {
  int64_t stride = 1;     ///< step between output positions
  int64_t dilation = 1;   ///< spacing between taps
  int64_t pad_left = 0;   ///< zeros before the input
  int64_t pad_right = 0;  ///< zeros after the input
};

/// One fused Adam update: the hyper-parameters (learning_rate: the current one, after any
/// schedule) and the step.
struct AdamParams {
  kernels::AdamHyperParameters hyper;
  int64_t step = 1;  ///< 1-based, for bias correction
};
/// Hyper-parameters of the fused SGD update.
struct SGDParams {
  double lr;            ///< step size (SGDOptions::learning_rate)
  double momentum;      ///< momentum factor (0: plain SGD)
  double dampening;     ///< dampening of the momentum
  double weight_decay;  ///< L2 penalty added to the gradient
  bool nesterov;        ///< as in SGDOptions
  bool first_step;      ///< momentum buffer starts as the gradient (PyTorch semantics)
};
/// Hyper-parameters of the fused RMSprop update.
struct RMSpropParams {
  double lr;            ///< step size (RMSpropOptions::learning_rate)
  double alpha;         ///< decay of the squared-gradient average
  double eps;           ///< added to the denominator
  double weight_decay;  ///< L2 penalty added to the gradient
  double momentum;      ///< momentum factor
  bool centered;        ///< as in RMSpropOptions
};

// ---- Memory -------------------------------------------------------------------------
// out <- value
STRAND_DECLARE_OP(FillOp, "fill", void(Tensor& out, double value));
// out <- source: same shape, any strides and dtypes (converts). Registered per device; the
// CUDA kernel also copies between host and device (dispatched on the non-CPU side).
STRAND_DECLARE_OP(CopyOp, "copy", void(Tensor& out, const Tensor& source));
/// Starts copying `source` to the host and returns at once; the returned function waits for
/// the copy to land and returns it (a contiguous CPU tensor of source's dtype). On a GPU the
/// copy goes to pinned memory behind an event, so a training loop can read a step's loss one
/// step later without ever stalling the stream; on the CPU it is a plain copy.
STRAND_DECLARE_OP(StartHostReadOp, "start_host_read",
                  std::function<Tensor()>(const Tensor& source));

// ---- Elementwise ----------------------------------------------------------------------
// out = f(x), x any strides, out contiguous of x's shape
STRAND_DECLARE_OP(UnaryOp, "unary", void(UnaryOpKind kind, const Tensor& x, Tensor& out));
// out = a (op) b with NumPy broadcasting; a, b any strides
STRAND_DECLARE_OP(BinaryOp, "binary",
                  void(BinaryOpKind kind, const Tensor& a, const Tensor& b, Tensor& out));
// out = x * scale + shift
STRAND_DECLARE_OP(AffineOp, "affine",
                  void(const Tensor& x, double scale, double shift, Tensor& out));
// dx = dy * (x > 0)
STRAND_DECLARE_OP(ReluBackwardOp, "relu_backward",
                  void(const Tensor& grad_out, const Tensor& x, Tensor& grad_in));
// dx = dy * y * (1 - y), y = sigmoid(x)
STRAND_DECLARE_OP(SigmoidBackwardOp, "sigmoid_backward",
                  void(const Tensor& grad_out, const Tensor& y, Tensor& grad_in));

// ---- Reductions -----------------------------------------------------------------------
// out = sum of x over `dims` (sorted, unique), out shaped as x with those dims set to 1
STRAND_DECLARE_OP(SumOp, "sum",
                  void(const Tensor& x, const std::vector<int64_t>& dims, Tensor& out));
// values, indices = max of x over `dim` (first index on ties), shaped as x with dim set to 1
STRAND_DECLARE_OP(MaxOp, "max",
                  void(const Tensor& x, int64_t dim, Tensor& values, Tensor& indices));
// grad_in (zeroed by the caller, x's shape) [.., indices[..], ..] += grad_out[.., 0, ..]
STRAND_DECLARE_OP(MaxBackwardOp, "max_backward",
                  void(const Tensor& grad_out, const Tensor& indices, int64_t dim,
                       Tensor& grad_in));

// ---- Linear algebra -------------------------------------------------------------------
// out (M, N) = a (M, K) @ b (K, N); a and b may be transposed views (any strides)
STRAND_DECLARE_OP(MatmulOp, "matmul", void(const Tensor& a, const Tensor& b, Tensor& out));

// ---- Convolution ----------------------------------------------------------------------
// x: (B, C, L), w: (O, C, K), bias: (O) or undefined -> out: (B, O, L_out)
STRAND_DECLARE_OP(Conv1DOp, "conv1d",
                  void(const Tensor& x, const Tensor& w, const Tensor& bias,
                       const Conv1DParams& params, Tensor& out));
// grad_out: (B, O, L_out), w: (O, C, K) -> grad_x: (B, C, L)
STRAND_DECLARE_OP(Conv1DBackwardInputOp, "conv1d_backward_input",
                  void(const Tensor& grad_out, const Tensor& w, const Conv1DParams& params,
                       Tensor& grad_x));
// grad_out: (B, O, L_out), x: (B, C, L) -> grad_w: (O, C, K)
STRAND_DECLARE_OP(Conv1DBackwardWeightOp, "conv1d_backward_weight",
                  void(const Tensor& grad_out, const Tensor& x, const Conv1DParams& params,
                       Tensor& grad_w));
// codes: (B, L) uint8 base codes (0..3 = A,C,G,T; anything else is N = all-zero one-hot),
// w: (O, 4, K) -> out: (B, O, L_out). A gather: no multiplications.
STRAND_DECLARE_OP(Conv1DOneHotOp, "conv1d_onehot",
                  void(const Tensor& codes, const Tensor& w, const Tensor& bias,
                       const Conv1DParams& params, Tensor& out));
// grad_out: (B, O, L_out), codes: (B, L) -> grad_w: (O, 4, K) (a scatter-add)
STRAND_DECLARE_OP(Conv1DOneHotBackwardWeightOp, "conv1d_onehot_backward_weight",
                  void(const Tensor& grad_out, const Tensor& codes, const Conv1DParams& params,
                       Tensor& grad_w));
// Fused relu(max_t conv1d(x)[b, o, t]): x: (B, C, L) float or (B, L) uint8 codes,
// w: (O, C, K) -> out: (B, O), argmax: (B, O) int64 (first position of the max).
STRAND_DECLARE_OP(Conv1DReluMaxOp, "conv1d_relu_max",
                  void(const Tensor& x, const Tensor& w, const Tensor& bias,
                       const Conv1DParams& params, Tensor& out, Tensor& argmax));
// Backward of the fused op: only the argmax position of each (b, o) with out > 0 carries
// gradient. grad_w/grad_bias are overwritten; grad_x (float x only; undefined for codes)
// is overwritten.
STRAND_DECLARE_OP(Conv1DReluMaxBackwardOp, "conv1d_relu_max_backward",
                  void(const Tensor& grad_out, const Tensor& x, const Tensor& w, const Tensor& out,
                       const Tensor& argmax, const Conv1DParams& params, Tensor& grad_x,
                       Tensor& grad_w, Tensor& grad_bias));

// ---- Losses ---------------------------------------------------------------------------
// elementwise loss = max(x, 0) - x * y + log(1 + exp(-|x|)); x, y same shape
STRAND_DECLARE_OP(BceWithLogitsOp, "bce_with_logits",
                  void(const Tensor& logits, const Tensor& targets, Tensor& out));
// grad = grad_out * (sigmoid(x) - y)
STRAND_DECLARE_OP(BceWithLogitsBackwardOp, "bce_with_logits_backward",
                  void(const Tensor& grad_out, const Tensor& logits, const Tensor& targets,
                       Tensor& grad_logits));

// ---- Optimizer updates (in place on contiguous tensors of one shape) ------------------
STRAND_DECLARE_OP(AdamUpdateOp, "adam_update",
                  void(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                       const AdamParams& params));
/// Adam over many parameters at once, with the learning rate and step count read from
/// `schedule` (float64 [lr, step], on the parameters' device) and the step advanced by the op
/// itself: a CUDA graph that captured it replays later steps with the right bias correction
/// and the learning rate the host last wrote into schedule[0]. params[i], grads[i],
/// exp_avgs[i], exp_avg_sqs[i]: contiguous, one dtype and one device.
/// AdamParams::hyper.learning_rate and ::step are ignored.
STRAND_DECLARE_OP(AdamScheduledUpdateOp, "adam_scheduled_update",
                  void(const std::vector<Tensor*>& params, const std::vector<const Tensor*>& grads,
                       const std::vector<Tensor*>& exp_avgs,
                       const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& params_in,
                       Tensor& schedule));
STRAND_DECLARE_OP(SGDUpdateOp, "sgd_update",
                  void(Tensor& param, const Tensor& grad, Tensor& momentum_buffer,
                       const SGDParams& params));
STRAND_DECLARE_OP(RMSpropUpdateOp, "rmsprop_update",
                  void(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                       Tensor& momentum_buffer, const RMSpropParams& params));

}  // namespace strand
