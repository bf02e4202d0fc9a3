// Conv1D: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rules are in ops/conv1d.cpp.
#include "ops/conv1d.h"

#include "kernels/cuda/conv1d.h"
#include "kernels/cuda/elementwise.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "tensor/cuda/adapter_util.h"
#include "tensor/cuda/conv_engine.h"

namespace strand {

// ---- CUDA adapters: Tensors to kernels/cuda/conv1d.cu and the cuDNN engine ---------------------
namespace {

namespace k = kernels::cuda;
using cuda::ConvPass;
using Geometry = kernels::Conv1DGeometry;
using Operands = cuda::ConvOperands;
using cuda::optional_mut;
using cuda::require_device;
using cuda::stream;

bool symmetric(const Conv1DParams& params) { return params.pad_left == params.pad_right; }

void conv1d_cuda(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv1DParams& params,
                 Tensor& out) {
  const Device device = out.device();
  require_device(device);
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor xc = x.contiguous(), wc = w.contiguous();
  const Tensor bc = bias.defined() ? bias.contiguous() : Tensor();
  const DType dtype = x.dtype();
  const cudaStream_t s = stream(device);
  cuda::run_dense_conv(
      ConvPass::kForward, g, symmetric(params), dtype, device,
      {xc.raw_data(), wc.raw_data(), optional_mut(bc), out.raw_data()},
      [&](const Geometry& at, const Operands& o) {
        k::conv1d_forward(dtype, at, o.a, o.b, o.bias, o.out, s);
      },
      [&](const Geometry& at, const Operands& o) {
        cuda::cudnn_conv_forward(at, device, o.a, o.b, o.out);
        k::add_channel_bias(dtype, at.batch, at.out_channels, at.out_length, o.bias, o.out, s);
      });
}

void conv1d_backward_input_cuda(const Tensor& grad_out, const Tensor& w, const Conv1DParams& params,
                                Tensor& grad_x) {
  const Device device = grad_x.device();
  require_device(device);
  const auto g = conv_geometry(grad_x.shape(), w.shape(), params);
  const Tensor go = grad_out.contiguous(), wc = w.contiguous();
  const DType dtype = w.dtype();
  const cudaStream_t s = stream(device);
  cuda::run_dense_conv(
      ConvPass::kBackwardInput, g, symmetric(params), dtype, device,
      {go.raw_data(), wc.raw_data(), nullptr, grad_x.raw_data()},
      [&](const Geometry& at, const Operands& o) {
        k::conv1d_backward_input(dtype, at, o.a, o.b, o.out, s);
      },
      [&](const Geometry& at, const Operands& o) {
        cuda::cudnn_conv_backward_input(at, device, o.a, o.b, o.out);
      });
}

void conv1d_backward_weight_cuda(const Tensor& grad_out, const Tensor& x,
                                 const Conv1DParams& params, Tensor& grad_w) {
  const Device device = grad_w.device();
  require_device(device);
  const auto g = conv_geometry(x.shape(), grad_w.shape(), params);
  const Tensor go = grad_out.contiguous(), xc = x.contiguous();
  const DType dtype = x.dtype();
  const cudaStream_t s = stream(device);
  cuda::run_dense_conv(
      ConvPass::kBackwardWeight, g, symmetric(params), dtype, device,
      {go.raw_data(), xc.raw_data(), nullptr, grad_w.raw_data()},
      [&](const Geometry& at, const Operands& o) {
        k::conv1d_backward_weight(dtype, at, o.a, o.b, o.out, s);
      },
      [&](const Geometry& at, const Operands& o) {
        cuda::cudnn_conv_backward_weight(at, device, o.a, o.b, o.out);
      });
}

void one_hot_cuda(const Tensor& codes, Tensor& out) {
  require_device(out.device());
  k::one_hot_from_codes(out.dtype(), codes.size(0), codes.size(1), codes.data<uint8_t>(),
                        out.raw_data(), stream(out.device()));
}

// The (B, 4, L) one-hot of `dtype` of device codes (B, L) at `codes`: cuDNN's input for the
// one-hot passes.
Tensor expand_codes(const void* codes, const Geometry& g, DType dtype, Device device) {
  const Tensor view =
      Tensor::from_blob(const_cast<void*>(codes), {g.batch, g.length}, DType::kUInt8, device);
  return ops::one_hot(view, dtype);
}

void conv1d_onehot_cuda(const Tensor& codes, const Tensor& w, const Tensor& bias,
                        const Conv1DParams& params, Tensor& out, Tensor& expanded) {
  const Device device = out.device();
  require_device(device);
  const auto g = conv_geometry(codes.shape(), w.shape(), params);
  const Tensor cc = codes.contiguous(), wc = w.contiguous();
  const Tensor bc = bias.defined() ? bias.contiguous() : Tensor();
  const DType dtype = w.dtype();
  const cudaStream_t s = stream(device);
  cuda::run_dense_conv(
      ConvPass::kOneHotForward, g, symmetric(params), dtype, device,
      {cc.raw_data(), wc.raw_data(), optional_mut(bc), out.raw_data()},
      [&](const Geometry& at, const Operands& o) {
        k::conv1d_onehot_forward(dtype, at, static_cast<const uint8_t*>(o.a), o.b, o.bias, o.out,
                                 s);
      },
      [&](const Geometry& at, const Operands& o) {
        const Tensor dense = expand_codes(o.a, at, dtype, device);
        cuda::cudnn_conv_forward(at, device, dense.raw_data(), o.b, o.out);
        k::add_channel_bias(dtype, at.batch, at.out_channels, at.out_length, o.bias, o.out, s);
        if (o.a == cc.raw_data()) expanded = dense;  // the caller's codes, not a scratch batch
      });
}

void conv1d_onehot_backward_weight_cuda(const Tensor& grad_out, const Tensor& codes,
                                        const Tensor& expanded, const Conv1DParams& params,
                                        Tensor& grad_w) {
  const Device device = grad_w.device();
  require_device(device);
  const auto g = conv_geometry(codes.shape(), grad_w.shape(), params);
  const Tensor go = grad_out.contiguous(), cc = codes.contiguous();
  const DType dtype = grad_w.dtype();
  const cudaStream_t s = stream(device);
  cuda::run_dense_conv(
      ConvPass::kOneHotBackwardWeight, g, symmetric(params), dtype, device,
      {go.raw_data(), cc.raw_data(), nullptr, grad_w.raw_data()},
      [&](const Geometry& at, const Operands& o) {
        k::conv1d_onehot_backward_weight(dtype, at, o.a, static_cast<const uint8_t*>(o.b), o.out,
                                         s);
      },
      [&](const Geometry& at, const Operands& o) {
        // The forward's one-hot of the caller's codes, else (a scratch batch, a forward that
        // gathered) the codes expanded here.
        const bool reuse = expanded.defined() && o.b == cc.raw_data();
        const Tensor dense = reuse ? expanded.contiguous() : expand_codes(o.b, at, dtype, device);
        cuda::cudnn_conv_backward_weight(at, device, o.a, dense.raw_data(), o.out);
      });
}

// relu(conv1d): the conv through its own adapters (own kernels or cuDNN), then the ReLU in place.
void conv1d_relu_cuda(const Tensor& x, const Tensor& w, const Tensor& bias,
                      const Conv1DParams& params, Tensor& out, Tensor& expanded) {
  if (x.dtype() == DType::kUInt8) {
    conv1d_onehot_cuda(x, w, bias, params, out, expanded);
  } else {
    conv1d_cuda(x, w, bias, params, out);
  }
  const auto space = cuda::space_of(out.shape(), "conv1d_relu");
  const auto strides = cuda::strides_of(out.strides());
  k::unary(out.dtype(), kernels::UnaryKind::kRelu, out.raw_data(), strides, out.raw_data(), strides,
           space, stream(out.device()));
}

// The gradients through the single-gradient ops: the mask (relu_backward), then each gradient
// written where it belongs.
void conv1d_backward_cuda(const Tensor& grad_out, const Tensor& x, const Tensor& expanded,
                          const Tensor& w, const Tensor& relu_out, const Conv1DParams& params,
                          Tensor& grad_x, Tensor& grad_w, Tensor& grad_bias) {
  const Tensor g = relu_out.defined() ? ops::relu_backward(grad_out, relu_out) : grad_out;
  if (grad_x.defined()) conv1d_backward_input_cuda(g, w, params, grad_x);
  if (x.dtype() == DType::kUInt8) {
    conv1d_onehot_backward_weight_cuda(g, x, expanded, params, grad_w);
  } else {
    conv1d_backward_weight_cuda(g, x, params, grad_w);
  }
  if (grad_bias.defined()) grad_bias.copy_(ops::sum(g, {0, 2}));
}

void conv1d_relu_max_cuda(const Tensor& x, const Tensor& w, const Tensor& bias,
                          const Conv1DParams& params, Tensor& out, Tensor& argmax) {
  require_device(out.device());
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor xc = x.contiguous(), wc = w.contiguous();
  const Tensor bc = bias.defined() ? bias.contiguous() : Tensor();
  const bool codes = x.dtype() == DType::kUInt8;
  k::conv1d_relu_max(w.dtype(), g, codes ? xc.data<uint8_t>() : nullptr,
                     codes ? nullptr : xc.raw_data(), wc.raw_data(), optional_mut(bc),
                     out.raw_data(), argmax.data<int64_t>(), stream(out.device()));
}

void conv1d_relu_max_backward_cuda(const Tensor& grad_out, const Tensor& x, const Tensor& w,
                                   const Tensor& out, const Tensor& argmax,
                                   const Conv1DParams& params, Tensor& grad_x, Tensor& grad_w,
                                   Tensor& grad_bias) {
  require_device(grad_w.device());
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor go = grad_out.contiguous(), xc = x.contiguous(), wc = w.contiguous();
  const Tensor oc = out.contiguous(), ac = argmax.contiguous();
  const bool codes = x.dtype() == DType::kUInt8;
  k::conv1d_relu_max_backward(w.dtype(), g, go.raw_data(), codes ? xc.data<uint8_t>() : nullptr,
                              codes ? nullptr : xc.raw_data(), wc.raw_data(), oc.raw_data(),
                              ac.data<int64_t>(), codes ? nullptr : optional_mut(grad_x),
                              grad_w.raw_data(), optional_mut(grad_bias), stream(grad_w.device()));
}

}  // namespace

STRAND_REGISTER_KERNELS(conv1d_cuda) {
  constexpr DeviceType kCuda = DeviceType::kCUDA;
  OpKernels<Conv1DOp>::register_kernel(kCuda, conv1d_cuda);
  OpKernels<Conv1DBackwardInputOp>::register_kernel(kCuda, conv1d_backward_input_cuda);
  OpKernels<Conv1DBackwardWeightOp>::register_kernel(kCuda, conv1d_backward_weight_cuda);
  OpKernels<Conv1DOneHotOp>::register_kernel(kCuda, conv1d_onehot_cuda);
  OpKernels<Conv1DOneHotBackwardWeightOp>::register_kernel(kCuda,
                                                           conv1d_onehot_backward_weight_cuda);
  OpKernels<Conv1DReluOp>::register_kernel(kCuda, conv1d_relu_cuda);
  OpKernels<Conv1DBackwardOp>::register_kernel(kCuda, conv1d_backward_cuda);
  OpKernels<Conv1DReluMaxOp>::register_kernel(kCuda, conv1d_relu_max_cuda);
  OpKernels<Conv1DReluMaxBackwardOp>::register_kernel(kCuda, conv1d_relu_max_backward_cuda);
  OpKernels<OneHotOp>::register_kernel(kCuda, one_hot_cuda);
}

}  // namespace strand
