// CPU kernels for Conv1D: dense, one-hot gather, and the fused Conv1D+ReLU+GlobalMaxPool.
#include "core/dtype_dispatch.h"
#include "kernels/cpu/conv1d.h"
#include "kernels/cpu/conv1d_onehot.h"
#include "tensor/conv_geometry.h"
#include "tensor/cpu/cpu_kernel_registration.h"
#include "tensor/op_declarations.h"

namespace strand {
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
                       const Conv1DParams& params, Tensor& out) {
  const auto g = conv_geometry(codes.shape(), w.shape(), params);
  const Tensor cc = codes.contiguous(), wc = w.contiguous();
  dispatch_floating(w.dtype(), "conv1d_onehot", [&]<typename T>() {
    cpu::conv1d_onehot_forward<T>(g, cc.data<uint8_t>(), wc.data<T>(),
                                  optional_data<T>(bias.contiguous()), out.data<T>());
  });
}

void conv1d_onehot_backward_weight_cpu(const Tensor& grad_out, const Tensor& codes,
                                       const Conv1DParams& params, Tensor& grad_w) {
  const auto g = conv_geometry(codes.shape(), grad_w.shape(), params);
  const Tensor go = grad_out.contiguous(), cc = codes.contiguous();
  dispatch_floating(grad_w.dtype(), "conv1d_onehot_backward_weight", [&]<typename T>() {
    cpu::conv1d_onehot_backward_weight<T>(g, go.data<T>(), cc.data<uint8_t>(), grad_w.data<T>());
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

void register_cpu_conv_kernels() {
  OpKernels<Conv1DOp>::register_kernel(DeviceType::kCPU, conv1d_cpu);
  OpKernels<Conv1DBackwardInputOp>::register_kernel(DeviceType::kCPU, conv1d_backward_input_cpu);
  OpKernels<Conv1DBackwardWeightOp>::register_kernel(DeviceType::kCPU, conv1d_backward_weight_cpu);
  OpKernels<Conv1DOneHotOp>::register_kernel(DeviceType::kCPU, conv1d_onehot_cpu);
  OpKernels<Conv1DOneHotBackwardWeightOp>::register_kernel(DeviceType::kCPU,
                                                           conv1d_onehot_backward_weight_cpu);
  OpKernels<Conv1DReluMaxOp>::register_kernel(DeviceType::kCPU, conv1d_relu_max_cpu);
  OpKernels<Conv1DReluMaxBackwardOp>::register_kernel(DeviceType::kCPU,
                                                      conv1d_relu_max_backward_cpu);
}

}  // namespace strand
