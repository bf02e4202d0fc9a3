// Conv1D: dense (any stride, dilation and padding), the one-hot gather Conv1D on base codes,
// Conv1D+ReLU (the ReLU applied where the bias is added), and the fused
// Conv1D+ReLU+GlobalMaxPool of the reference model. Declared, checked,
// dispatched and differentiated here; the kernels are kernels/cpu/conv1d{,_onehot}.h and
// kernels/cuda/conv1d.cu (and cuDNN, through tensor/cuda/conv_engine.h).
#pragma once

#include <cstdint>
#include <tuple>
#include <utility>

#include "autograd/var.h"
#include "kernels/conv1d_geometry.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

/// Parameters shared by the Conv1D kernels. Input length L, output length
/// L_out = (L + pad_left + pad_right - dilation * (K - 1) - 1) / stride + 1.
struct Conv1DParams {
  int64_t stride = 1;     ///< step between output positions
  int64_t dilation = 1;   ///< spacing between taps
  int64_t pad_left = 0;   ///< zeros before the input
  int64_t pad_right = 0;  ///< zeros after the input
};

/// The output length for an input of `length` and `kernel_size` taps (0 when none fits).
inline int64_t conv1d_out_length(int64_t length, int64_t kernel_size, const Conv1DParams& p) {
  const int64_t span = length + p.pad_left + p.pad_right - p.dilation * (kernel_size - 1) - 1;
  return span < 0 ? 0 : span / p.stride + 1;
}

inline kernels::Conv1DGeometry conv_geometry(const Shape& input, const Shape& weight,
                                             const Conv1DParams& p) {
  kernels::Conv1DGeometry g;
  g.batch = input[0];
  g.in_channels = input.size() == 2 ? 4 : input[1];
  g.length = input.back();
  g.out_channels = weight[0];
  g.kernel_size = weight[2];
  g.stride = p.stride;
  g.dilation = p.dilation;
  g.pad_left = p.pad_left;
  g.out_length = conv1d_out_length(g.length, g.kernel_size, p);
  return g;
}

// ---- The ops and their kernel signatures -----------------------------------------------
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
// w: (O, 4, K) -> out: (B, O, L_out). A gather: no multiplications. `expanded` is set to the
// (B, 4, L) one-hot of w's dtype the kernel expanded the codes into, where it did (cuDNN on a
// GPU), so that the backward pass reuses it; left as it is otherwise.
STRAND_DECLARE_OP(Conv1DOneHotOp, "conv1d_onehot",
                  void(const Tensor& codes, const Tensor& w, const Tensor& bias,
                       const Conv1DParams& params, Tensor& out, Tensor& expanded));
// grad_out: (B, O, L_out), codes: (B, L) -> grad_w: (O, 4, K) (a scatter-add). `expanded`: the
// forward's one-hot of the codes (Conv1DOneHotOp's), which a kernel that reads a one-hot (cuDNN)
// takes instead of expanding the codes again; undefined when there is none.
STRAND_DECLARE_OP(Conv1DOneHotBackwardWeightOp, "conv1d_onehot_backward_weight",
                  void(const Tensor& grad_out, const Tensor& codes, const Tensor& expanded,
                       const Conv1DParams& params, Tensor& grad_w));
// codes: (B, L) uint8 -> out: (B, 4, L) float, 1 in the row of each base, all zeros for N
// (ops::one_hot; on a GPU, cuDNN's input for the one-hot convolutions).
STRAND_DECLARE_OP(OneHotOp, "one_hot", void(const Tensor& codes, Tensor& out));
// relu(conv1d(x) + bias): x (B, C, L) float or (B, L) uint8 codes, w (O, C, K), bias (O) or
// undefined -> out (B, O, L_out), in the pass that adds the bias; `expanded` as for
// Conv1DOneHotOp (codes only).
STRAND_DECLARE_OP(Conv1DReluOp, "conv1d_relu",
                  void(const Tensor& x, const Tensor& w, const Tensor& bias,
                       const Conv1DParams& params, Tensor& out, Tensor& expanded));
// Every gradient of conv1d or conv1d_relu at once: grad_out (B, O, L_out); x (B, C, L) float or
// (B, L) codes, with `expanded` as for Conv1DOneHotBackwardWeightOp (codes only); w (O, C, K);
// relu_out: conv1d_relu's output (grad_out is masked by relu_out > 0), undefined for conv1d ->
// grad_w (O, C, K), and grad_x (x's shape, float x only) and grad_bias (O) where defined; all
// overwritten.
STRAND_DECLARE_OP(Conv1DBackwardOp, "conv1d_backward",
                  void(const Tensor& grad_out, const Tensor& x, const Tensor& expanded,
                       const Tensor& w, const Tensor& relu_out, const Conv1DParams& params,
                       Tensor& grad_x, Tensor& grad_w, Tensor& grad_bias));
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

// ---- On tensors (no autograd) -----------------------------------------------------------
namespace ops {
/// x: (B, C, L) float -> (B, O, L_out); or codes (B, L) uint8 with w: (O, 4, K) through the
/// one-hot gather kernel. For codes, `expanded` (when given) receives the (B, 4, L) one-hot the
/// backend expanded them into, if it did (cuDNN on a GPU), for conv1d_backward_weight or
/// conv1d_backward to read instead of expanding the codes again. It stays undefined otherwise.
Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv1DParams& params,
              Tensor* expanded = nullptr);
Tensor conv1d_backward_input(const Tensor& grad_out, const Tensor& w, const Shape& input_shape,
                             const Conv1DParams& params);
/// grad_w for float input or for codes (one-hot scatter; `expanded`: conv1d's, if any).
Tensor conv1d_backward_weight(const Tensor& grad_out, const Tensor& x, const Shape& weight_shape,
                              const Conv1DParams& params, const Tensor& expanded = Tensor());
/// relu(conv1d(x) + bias), the ReLU applied in the pass that adds the bias; `expanded` as for
/// conv1d.
Tensor conv1d_relu(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv1DParams& params,
                   Tensor* expanded = nullptr);
/// (grad_x, grad_w, grad_bias) of conv1d (relu_out undefined) or conv1d_relu (relu_out its
/// output); grad_x only when `input_gradient` (float x), grad_bias only when `bias_gradient`;
/// `expanded`: for codes, conv1d's (or conv1d_relu's) one-hot of them, if any.
std::tuple<Tensor, Tensor, Tensor> conv1d_backward(const Tensor& grad_out, const Tensor& x,
                                                   const Tensor& w, const Tensor& relu_out,
                                                   const Conv1DParams& params, bool input_gradient,
                                                   bool bias_gradient,
                                                   const Tensor& expanded = Tensor());
/// relu(max over positions of conv1d(x)): (out (B, O), argmax (B, O) int64).
std::pair<Tensor, Tensor> conv1d_relu_max(const Tensor& x, const Tensor& w, const Tensor& bias,
                                          const Conv1DParams& params);
/// The expected one-hot float tensor (B, 4, L) of codes (B, L), on the codes' device; N is all
/// zeros.
Tensor one_hot(const Tensor& codes, DType dtype = DType::kFloat32);
}  // namespace ops

// ---- Differentiable ---------------------------------------------------------------------
/// x: (B, C, L) float, or (B, L) uint8 base codes (one-hot gather path; w must be (O, 4, K)),
/// w: (O, C, K), bias: (O) or undefined -> (B, O, L_out).
Var conv1d(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params);
/// relu(conv1d(x) + bias) in one pass each way (Sequential runs Conv1D -> ReLU so). Same
/// arguments as conv1d.
Var conv1d_relu(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params);
/// Fused relu(max_t conv1d(x)): (B, O). Same arguments as conv1d.
Var conv1d_relu_max(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params);

}  // namespace strand
