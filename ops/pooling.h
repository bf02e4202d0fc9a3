// 1-D pooling over positions: max pooling (with the first argmax of each window), average
// pooling, and global average pooling. Declared, checked, dispatched and differentiated here;
// the kernels are kernels/cpu/pooling.h and kernels/cuda/pooling.cu. (Global max pooling is a
// reduction: ops/reduction.h.)
#pragma once

#include <cstdint>
#include <utility>

#include "autograd/var.h"
#include "kernels/pooling_geometry.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

/// A pooling window: kernel taps, the step between windows (as PyTorch's MaxPool1d; Keras
/// calls them pool_size and strides) and whether a last, shorter window is kept (ceil_mode).
/// No padding.
struct Pool1DParams {
  int64_t kernel = 2;
  int64_t stride = 2;
  bool ceil_mode = false;
};

/// The kernels' geometry of x (B, C, L) pooled by `params` (both backends' adapters use it).
inline kernels::Pool1DGeometry pool_geometry(const Shape& input, const Pool1DParams& params) {
  kernels::Pool1DGeometry g;
  g.rows = input[0] * input[1];
  g.length = input[2];
  g.kernel = params.kernel;
  g.stride = params.stride;
  g.out_length =
      kernels::pool1d_out_length(g.length, params.kernel, params.stride, params.ceil_mode);
  return g;
}

// ---- The ops and their kernel signatures (x: (B, C, L) contiguous, out: (B, C, L_out)) ---
STRAND_DECLARE_OP(MaxPool1DOp, "max_pool1d",
                  void(const Tensor& x, const Pool1DParams& params, Tensor& out, Tensor& argmax));
// grad_x (B, C, L) overwritten from grad_out (B, C, L_out) and argmax (positions within L)
STRAND_DECLARE_OP(MaxPool1DBackwardOp, "max_pool1d_backward",
                  void(const Tensor& grad_out, const Tensor& argmax, const Pool1DParams& params,
                       Tensor& grad_x));
STRAND_DECLARE_OP(AvgPool1DOp, "avg_pool1d",
                  void(const Tensor& x, const Pool1DParams& params, Tensor& out));
STRAND_DECLARE_OP(AvgPool1DBackwardOp, "avg_pool1d_backward",
                  void(const Tensor& grad_out, const Pool1DParams& params, Tensor& grad_x));

// ---- On tensors (no autograd) -----------------------------------------------------------
namespace ops {
/// x: (B, C, L) float -> (values (B, C, L_out), argmax (B, C, L_out) int64).
std::pair<Tensor, Tensor> max_pool1d(const Tensor& x, const Pool1DParams& params);
Tensor max_pool1d_backward(const Tensor& grad_out, const Tensor& argmax, const Shape& input_shape,
                           const Pool1DParams& params);
/// x: (B, C, L) float -> (B, C, L_out), each the mean of its window.
Tensor avg_pool1d(const Tensor& x, const Pool1DParams& params);
Tensor avg_pool1d_backward(const Tensor& grad_out, const Shape& input_shape,
                           const Pool1DParams& params);
}  // namespace ops

// ---- Differentiable ---------------------------------------------------------------------
/// (B, C, L) -> (B, C, L_out): the maximum of each window; the gradient goes to its argmax.
Var max_pool1d(const Var& x, const Pool1DParams& params);
/// (B, C, L) -> (B, C, L_out): the mean of each window.
Var avg_pool1d(const Var& x, const Pool1DParams& params);
/// (B, C, L) -> (B, C): the mean over positions.
Var global_avg_pool1d(const Var& x);

}  // namespace strand
