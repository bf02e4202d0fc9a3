// Conv1D: argument checks and dispatch, the CPU adapters with their registration (the CUDA ones:
// ops/cuda/conv1d.cpp), and the differentiable functions with their gradient rules.
#include "ops/conv1d.h"

#include "autograd/attribution.h"
#include "core/dtype_dispatch.h"
#include "kernels/cpu/conv1d.h"
#include "kernels/cpu/conv1d_columns.h"
#include "kernels/cpu/conv1d_onehot.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "tensor/argument_checks.h"

namespace strand {

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

namespace {
// Checks x (B, C, L) or codes (B, L), w (O, C, K), bias (O); returns the output length.
int64_t check_conv_args(const char* op, const Tensor& x, const Tensor& w, const Tensor& bias,
                        const Conv1DParams& p) {
  check_defined(op, x);
  check_floating(op, w);
  check_rank(op, "weight (O, C, K)", w, 3);
  check_same_device(op, x, w);
  STRAND_CHECK(p.stride >= 1 && p.dilation >= 1 && p.pad_left >= 0 && p.pad_right >= 0,
               "{}: stride and dilation must be >= 1 and padding >= 0", op);
  if (x.dtype() == DType::kUInt8) {
    check_rank(op, "base codes (B, L)", x, 2);
    STRAND_CHECK(w.size(1) == 4,
                 "{}: base codes are one-hot with 4 channels but the weight is {} (expected "
                 "(O, 4, K))",
                 op, w.describe());
  } else {
    check_floating(op, x);
    check_rank(op, "input (B, C, L)", x, 3);
    check_same_dtype(op, x, w);
    STRAND_CHECK(x.size(1) == w.size(1),
                 "{}: input {} has {} channels but the weight {} expects {}", op, x.describe(),
                 x.size(1), w.describe(), w.size(1));
  }
  if (bias.defined()) {
    check_same_dtype(op, bias, w);
    check_same_device(op, bias, w);
    STRAND_CHECK(bias.dim() == 1 && bias.size(0) == w.size(0),
                 "{}: bias {} does not match {} filters", op, bias.describe(), w.size(0));
  }
  const int64_t out_length = conv1d_out_length(x.shape().back(), w.size(2), p);
  STRAND_CHECK(out_length > 0,
               "{}: input length {} is shorter than the kernel's receptive field ({} taps, "
               "dilation {}, padding {}+{})",
               op, x.shape().back(), w.size(2), p.dilation, p.pad_left, p.pad_right);
  return out_length;
}
}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv1DParams& params,
              Tensor* expanded) {
  const int64_t out_length = check_conv_args("conv1d", x, w, bias, params);
  Tensor out = Tensor::empty({x.size(0), w.size(0), out_length}, w.dtype(), w.device());
  if (x.dtype() == DType::kUInt8) {
    Tensor one_hot;
    dispatch<Conv1DOneHotOp>(x.device(), x, w, bias, params, out, one_hot);
    if (expanded != nullptr) *expanded = one_hot;
  } else {
    dispatch<Conv1DOp>(x.device(), x, w, bias, params, out);
  }
  return out;
}

Tensor conv1d_backward_input(const Tensor& grad_out, const Tensor& w, const Shape& input_shape,
                             const Conv1DParams& params) {
  Tensor grad_x = Tensor::empty(input_shape, w.dtype(), w.device());
  dispatch<Conv1DBackwardInputOp>(w.device(), grad_out, w, params, grad_x);
  return grad_x;
}

Tensor conv1d_backward_weight(const Tensor& grad_out, const Tensor& x, const Shape& weight_shape,
                              const Conv1DParams& params, const Tensor& expanded) {
  Tensor grad_w = Tensor::empty(weight_shape, grad_out.dtype(), grad_out.device());
  if (x.dtype() == DType::kUInt8) {
    dispatch<Conv1DOneHotBackwardWeightOp>(x.device(), grad_out, x, expanded, params, grad_w);
  } else {
    dispatch<Conv1DBackwardWeightOp>(x.device(), grad_out, x, params, grad_w);
  }
  return grad_w;
}

Tensor conv1d_relu(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv1DParams& params,
                   Tensor* expanded) {
  const int64_t out_length = check_conv_args("conv1d_relu", x, w, bias, params);
  Tensor out = Tensor::empty({x.size(0), w.size(0), out_length}, w.dtype(), w.device());
  Tensor one_hot;
  dispatch<Conv1DReluOp>(x.device(), x, w, bias, params, out, one_hot);
  if (expanded != nullptr && x.dtype() == DType::kUInt8) *expanded = one_hot;
  return out;
}

std::tuple<Tensor, Tensor, Tensor> conv1d_backward(const Tensor& grad_out, const Tensor& x,
                                                   const Tensor& w, const Tensor& relu_out,
                                                   const Conv1DParams& params, bool input_gradient,
                                                   bool bias_gradient, const Tensor& expanded) {
  STRAND_CHECK(!input_gradient || x.dtype() != DType::kUInt8,
               "conv1d_backward: base codes have no gradient");
  Tensor grad_x = input_gradient ? Tensor::empty(x.shape(), w.dtype(), w.device()) : Tensor();
  Tensor grad_w = Tensor::empty(w.shape(), w.dtype(), w.device());
  Tensor grad_bias = bias_gradient ? Tensor::empty({w.size(0)}, w.dtype(), w.device()) : Tensor();
  dispatch<Conv1DBackwardOp>(w.device(), grad_out, x, expanded, w, relu_out, params, grad_x, grad_w,
                             grad_bias);
  return {grad_x, grad_w, grad_bias};
}

std::pair<Tensor, Tensor> conv1d_relu_max(const Tensor& x, const Tensor& w, const Tensor& bias,
                                          const Conv1DParams& params) {
  check_conv_args("conv1d_relu_max", x, w, bias, params);
  Tensor out = Tensor::empty({x.size(0), w.size(0)}, w.dtype(), w.device());
  Tensor argmax = Tensor::empty({x.size(0), w.size(0)}, DType::kInt64, w.device());
  dispatch<Conv1DReluMaxOp>(x.device(), x, w, bias, params, out, argmax);
  return {out, argmax};
}

Tensor one_hot(const Tensor& codes, DType dtype) {
  check_rank("one_hot", "base codes (B, L)", codes, 2);
  STRAND_CHECK(codes.dtype() == DType::kUInt8, "one_hot: expected uint8 base codes, got {}",
               codes.describe());
  STRAND_CHECK(is_floating(dtype), "one_hot: expected a float32 or float64 result, got {}",
               dtype_name(dtype));
  Tensor out = Tensor::empty({codes.size(0), 4, codes.size(1)}, dtype, codes.device());
  dispatch<OneHotOp>(codes.device(), codes.contiguous(), out);
  return out;
}

}  // namespace ops

// ---- CPU adapters: Tensors to kernels/cpu/conv1d{,_onehot}.h --------------------------------
namespace {

namespace cpu = kernels::cpu;

template <typename T>
const T* optional_data(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

void conv1d_cpu(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv1DParams& params,
                Tensor& out) {
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor xc = x.contiguous(), wc = w.contiguous();
  dispatch_floating(x.dtype(), "conv1d", [&]<typename T>() {
    cpu::conv1d_forward<T>(g, xc.data<T>(), wc.data<T>(), optional_data<T>(bias.contiguous()),
                           out.data<T>());
  });
}

void conv1d_backward_input_cpu(const Tensor& grad_out, const Tensor& w, const Conv1DParams& params,
                               Tensor& grad_x) {
  const auto g = conv_geometry(grad_x.shape(), w.shape(), params);
  const Tensor go = grad_out.contiguous(), wc = w.contiguous();
  dispatch_floating(w.dtype(), "conv1d_backward_input", [&]<typename T>() {
    cpu::conv1d_backward_input<T>(g, go.data<T>(), wc.data<T>(), grad_x.data<T>());
  });
}

void conv1d_backward_weight_cpu(const Tensor& grad_out, const Tensor& x, const Conv1DParams& params,
                                Tensor& grad_w) {
  const auto g = conv_geometry(x.shape(), grad_w.shape(), params);
  const Tensor go = grad_out.contiguous(), xc = x.contiguous();
  dispatch_floating(x.dtype(), "conv1d_backward_weight", [&]<typename T>() {
    cpu::conv1d_backward_weight<T>(g, go.data<T>(), xc.data<T>(), grad_w.data<T>());
  });
}

void conv1d_onehot_cpu(const Tensor& codes, const Tensor& w, const Tensor& bias,
                       const Conv1DParams& params, Tensor& out, Tensor& /*expanded*/) {
  const auto g = conv_geometry(codes.shape(), w.shape(), params);
  const Tensor cc = codes.contiguous(), wc = w.contiguous();
  dispatch_floating(w.dtype(), "conv1d_onehot", [&]<typename T>() {
    cpu::conv1d_onehot_forward<T>(g, cc.data<uint8_t>(), wc.data<T>(),
                                  optional_data<T>(bias.contiguous()), out.data<T>());
  });
}

void conv1d_onehot_backward_weight_cpu(const Tensor& grad_out, const Tensor& codes,
                                       const Tensor& /*expanded*/, const Conv1DParams& params,
                                       Tensor& grad_w) {
  const auto g = conv_geometry(codes.shape(), grad_w.shape(), params);
  const Tensor go = grad_out.contiguous(), cc = codes.contiguous();
  dispatch_floating(grad_w.dtype(), "conv1d_onehot_backward_weight", [&]<typename T>() {
    cpu::conv1d_onehot_backward_weight<T>(g, go.data<T>(), cc.data<uint8_t>(), grad_w.data<T>());
  });
}

void conv1d_relu_cpu(const Tensor& x, const Tensor& w, const Tensor& bias,
                     const Conv1DParams& params, Tensor& out, Tensor& /*expanded*/) {
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor xc = x.contiguous(), wc = w.contiguous();
  dispatch_floating(w.dtype(), "conv1d_relu", [&]<typename T>() {
    const T* b = optional_data<T>(bias.contiguous());
    if (x.dtype() == DType::kUInt8) {
      cpu::conv1d_onehot_forward<T>(g, xc.data<uint8_t>(), wc.data<T>(), b, out.data<T>(),
                                    /*relu=*/true);
    } else {
      cpu::conv1d_forward<T>(g, xc.data<T>(), wc.data<T>(), b, out.data<T>(), /*relu=*/true);
    }
  });
}

void conv1d_backward_cpu(const Tensor& grad_out, const Tensor& x, const Tensor& /*expanded*/,
                         const Tensor& w, const Tensor& relu_out, const Conv1DParams& params,
                         Tensor& grad_x, Tensor& grad_w, Tensor& grad_bias) {
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor go = grad_out.contiguous(), xc = x.contiguous(), wc = w.contiguous();
  const Tensor oc = relu_out.defined() ? relu_out.contiguous() : Tensor();
  const bool codes = x.dtype() == DType::kUInt8;
  dispatch_floating(w.dtype(), "conv1d_backward", [&]<typename T>() {
    cpu::conv1d_backward<T>(g, go.data<T>(), codes ? nullptr : xc.data<T>(),
                            codes ? xc.data<uint8_t>() : nullptr, wc.data<T>(),
                            optional_data<T>(oc), grad_x.defined() ? grad_x.data<T>() : nullptr,
                            grad_w.data<T>(), grad_bias.defined() ? grad_bias.data<T>() : nullptr);
  });
}

void conv1d_relu_max_cpu(const Tensor& x, const Tensor& w, const Tensor& bias,
                         const Conv1DParams& params, Tensor& out, Tensor& argmax) {
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor xc = x.contiguous(), wc = w.contiguous();
  dispatch_floating(w.dtype(), "conv1d_relu_max", [&]<typename T>() {
    const T* b = optional_data<T>(bias.contiguous());
    if (x.dtype() == DType::kUInt8) {
      cpu::conv1d_relu_max_onehot<T>(g, xc.data<uint8_t>(), wc.data<T>(), b, out.data<T>(),
                                     argmax.data<int64_t>());
    } else {
      cpu::conv1d_relu_max_dense<T>(g, xc.data<T>(), wc.data<T>(), b, out.data<T>(),
                                    argmax.data<int64_t>());
    }
  });
}

void conv1d_relu_max_backward_cpu(const Tensor& grad_out, const Tensor& x, const Tensor& w,
                                  const Tensor& out, const Tensor& argmax,
                                  const Conv1DParams& params, Tensor& grad_x, Tensor& grad_w,
                                  Tensor& grad_bias) {
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor go = grad_out.contiguous(), xc = x.contiguous(), wc = w.contiguous();
  const bool codes = x.dtype() == DType::kUInt8;
  dispatch_floating(w.dtype(), "conv1d_relu_max_backward", [&]<typename T>() {
    cpu::conv1d_relu_max_backward<T>(
        g, go.data<T>(), codes ? xc.data<uint8_t>() : nullptr, codes ? nullptr : xc.data<T>(),
        wc.data<T>(), out.data<T>(), argmax.data<int64_t>(),
        grad_x.defined() ? grad_x.data<T>() : nullptr, grad_w.data<T>(),
        grad_bias.defined() ? grad_bias.data<T>() : nullptr);
  });
}

}  // namespace

void one_hot_cpu(const Tensor& codes, Tensor& out) {
  dispatch_floating(out.dtype(), "one_hot", [&]<typename T>() {
    cpu::one_hot_from_codes<T>(codes.size(0), codes.size(1), codes.data<uint8_t>(), out.data<T>());
  });
}

STRAND_REGISTER_KERNELS(conv1d_cpu) {
  OpKernels<Conv1DOp>::register_kernel(DeviceType::kCPU, conv1d_cpu);
  OpKernels<Conv1DBackwardInputOp>::register_kernel(DeviceType::kCPU, conv1d_backward_input_cpu);
  OpKernels<Conv1DBackwardWeightOp>::register_kernel(DeviceType::kCPU, conv1d_backward_weight_cpu);
  OpKernels<Conv1DOneHotOp>::register_kernel(DeviceType::kCPU, conv1d_onehot_cpu);
  OpKernels<Conv1DOneHotBackwardWeightOp>::register_kernel(DeviceType::kCPU,
                                                           conv1d_onehot_backward_weight_cpu);
  OpKernels<Conv1DReluOp>::register_kernel(DeviceType::kCPU, conv1d_relu_cpu);
  OpKernels<Conv1DBackwardOp>::register_kernel(DeviceType::kCPU, conv1d_backward_cpu);
  OpKernels<Conv1DReluMaxOp>::register_kernel(DeviceType::kCPU, conv1d_relu_max_cpu);
  OpKernels<Conv1DReluMaxBackwardOp>::register_kernel(DeviceType::kCPU,
                                                      conv1d_relu_max_backward_cpu);
  OpKernels<OneHotOp>::register_kernel(DeviceType::kCPU, one_hot_cpu);
}

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

namespace {

// conv1d (relu = false) or conv1d_relu: the gradient rule is one Conv1DBackwardOp, which masks
// by the output when a ReLU was fused.
Var conv1d_with(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params,
                bool relu) {
  const Tensor xv = x.value(), wv = w.value();
  const bool has_bias = bias.defined();
  const bool x_grad = x.requires_grad();
  const Tensor bv = has_bias ? bias.value() : Tensor();
  // Codes the backend expanded to a one-hot (cuDNN on a GPU): the weight gradient's one-hot pass
  // reads that one-hot rather than expanding the codes again.
  Tensor expanded;
  Tensor out = relu ? ops::conv1d_relu(xv, wv, bv, params, &expanded)
                    : ops::conv1d(xv, wv, bv, params, &expanded);
  std::vector<Var> inputs = {x, w};
  if (has_bias) inputs.push_back(bias);
  const Tensor relu_out = relu ? out : Tensor();
  if (!w.requires_grad() && !(has_bias && bias.requires_grad())) {
    // Frozen weights (attributions, input gradients): the input's gradient alone, without the
    // weight gradient's GEMM.
    const Shape x_shape = xv.shape();
    return make_result(out, relu ? "conv1d_relu" : "conv1d", inputs, [=](const Tensor& g) {
      const Tensor masked = relu ? ops::relu_backward(g, relu_out) : g;
      std::vector<Tensor> grads = {
          x_grad ? ops::conv1d_backward_input(masked, wv, x_shape, params) : Tensor(), Tensor()};
      if (has_bias) grads.emplace_back();
      return grads;
    });
  }
  return make_result(out, relu ? "conv1d_relu" : "conv1d", inputs, [=](const Tensor& g) {
    auto [grad_x, grad_w, grad_bias] =
        ops::conv1d_backward(g, xv, wv, relu_out, params, x_grad, has_bias, expanded);
    std::vector<Tensor> grads = {grad_x, grad_w};
    if (has_bias) grads.push_back(grad_bias);  // (O)
    return grads;
  });
}

}  // namespace

Var conv1d(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params) {
  return conv1d_with(x, w, bias, params, false);
}

Var conv1d_relu(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params) {
  // An attribution pass needs the ReLU's own rule (autograd/attribution.h): unfused.
  if (attribution_pass() != nullptr) return relu(conv1d_with(x, w, bias, params, false));
  return conv1d_with(x, w, bias, params, true);
}

Var conv1d_relu_max(const Var& x, const Var& w, const Var& bias, const Conv1DParams& params) {
  if (attribution_pass() != nullptr) {
    return global_max_pool1d(relu(conv1d_with(x, w, bias, params, false)));
  }
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

}  // namespace strand
