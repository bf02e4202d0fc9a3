// Differentiable Conv1D (dense and one-hot), the fused Conv1D+ReLU+GlobalMaxPool, and global
// max pooling.
#include "autograd/functions.h"
#include "tensor/ops.h"

namespace strand {

Var conv1d(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params) {
  const Tensor xv = x.value(), wv = w.value();
  const bool has_bias = bias.defined();
  const bool x_grad = x.requires_grad();
  Tensor out = ops::conv1d(xv, wv, has_bias ? bias.value() : Tensor(), params);
  std::vector<Var> inputs = {x, w};
  if (has_bias) inputs.push_back(bias);
  return make_result(out, "conv1d", inputs, [=](const Tensor& g) {
    std::vector<Tensor> grads = {
        x_grad ? ops::conv1d_backward_input(g, wv, xv.shape(), params) : Tensor(),
        ops::conv1d_backward_weight(g, xv, wv.shape(), params)};
    if (has_bias) grads.push_back(ops::sum(g, {0, 2}));  // bias: (O)
    return grads;
  });
}

Var conv1d_relu_max(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params) {
  const Tensor xv = x.value(), wv = w.value();
  const bool has_bias = bias.defined();
  const bool x_grad = x.requires_grad();
  auto [out, argmax] = ops::conv1d_relu_max(xv, wv, has_bias ? bias.value() : Tensor(), params);
  std::vector<Var> inputs = {x, w};
  if (has_bias) inputs.push_back(bias);
  return make_result(
      out, "conv1d_relu_max", inputs, [=, out = out, argmax = argmax](const Tensor& g) {
        Tensor grad_x = x_grad ? Tensor::empty(xv.shape(), wv.dtype(), wv.device()) : Tensor();
        Tensor grad_w = Tensor::empty(wv.shape(), wv.dtype(), wv.device());
        Tensor grad_bias =
            has_bias ? Tensor::empty({wv.size(0)}, wv.dtype(), wv.device()) : Tensor();
        dispatch<Conv1DReluMaxBackwardOp>(wv.device(), g, xv, wv, out, argmax, params, grad_x,
                                          grad_w, grad_bias);
        std::vector<Tensor> grads = {grad_x, grad_w};
        if (has_bias) grads.push_back(grad_bias);
        return grads;
      });
}

Var global_max_pool1d(const Var& x) {
  STRAND_CHECK(x.dim() == 3, "global_max_pool1d: expected (B, C, L), got {}", x.value().describe());
  return max(x, 2, false).first;
}

}  // namespace strand
