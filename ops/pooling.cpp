// 1-D pooling: argument checks and dispatch, the CPU adapters with their registration (the CUDA
// ones: ops/cuda/pooling.cpp), and the differentiable functions with their gradient rules.
#include "ops/pooling.h"

#include "autograd/attribution.h"
#include "core/dtype_dispatch.h"
#include "kernels/cpu/pooling.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "tensor/argument_checks.h"

namespace strand {
namespace {

// Checks x (B, C, L) float and the window; returns L_out.
int64_t check_pool_args(const char* op, const Tensor& x, const Pool1DParams& params) {
  ops::check_floating(op, x);
  ops::check_rank(op, "input (B, C, L)", x, 3);
  STRAND_CHECK(params.kernel >= 1 && params.stride >= 1,
               "{}: kernel and stride must be >= 1, got kernel {} and stride {}", op, params.kernel,
               params.stride);
  const int64_t out_length =
      kernels::pool1d_out_length(x.size(2), params.kernel, params.stride, params.ceil_mode);
  STRAND_CHECK(out_length > 0, "{}: input {} is shorter than the pooling window ({})", op,
               x.describe(), params.kernel);
  return out_length;
}

}  // namespace

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

std::pair<Tensor, Tensor> max_pool1d(const Tensor& x, const Pool1DParams& params) {
  const int64_t out_length = check_pool_args("max_pool1d", x, params);
  const Shape shape = {x.size(0), x.size(1), out_length};
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  Tensor argmax = Tensor::empty(shape, DType::kInt64, x.device());
  dispatch<MaxPool1DOp>(x.device(), x.contiguous(), params, out, argmax);
  return {out, argmax};
}

Tensor max_pool1d_backward(const Tensor& grad_out, const Tensor& argmax, const Shape& input_shape,
                           const Pool1DParams& params) {
  Tensor grad_x = Tensor::empty(input_shape, grad_out.dtype(), grad_out.device());
  dispatch<MaxPool1DBackwardOp>(grad_out.device(), grad_out.contiguous(), argmax.contiguous(),
                                params, grad_x);
  return grad_x;
}

Tensor avg_pool1d(const Tensor& x, const Pool1DParams& params) {
  const int64_t out_length = check_pool_args("avg_pool1d", x, params);
  Tensor out = Tensor::empty({x.size(0), x.size(1), out_length}, x.dtype(), x.device());
  dispatch<AvgPool1DOp>(x.device(), x.contiguous(), params, out);
  return out;
}

Tensor avg_pool1d_backward(const Tensor& grad_out, const Shape& input_shape,
                           const Pool1DParams& params) {
  Tensor grad_x = Tensor::empty(input_shape, grad_out.dtype(), grad_out.device());
  dispatch<AvgPool1DBackwardOp>(grad_out.device(), grad_out.contiguous(), params, grad_x);
  return grad_x;
}

}  // namespace ops

// ---- CPU adapters: Tensors to kernels/cpu/pooling.h ------------------------------------------
namespace {

void max_pool1d_cpu(const Tensor& x, const Pool1DParams& params, Tensor& out, Tensor& argmax) {
  dispatch_floating(x.dtype(), "max_pool1d", [&]<typename T>() {
    kernels::cpu::max_pool1d_forward<T>(pool_geometry(x.shape(), params), x.data<T>(),
                                        out.data<T>(), argmax.data<int64_t>());
  });
}

void max_pool1d_backward_cpu(const Tensor& grad_out, const Tensor& argmax,
                             const Pool1DParams& params, Tensor& grad_x) {
  dispatch_floating(grad_x.dtype(), "max_pool1d_backward", [&]<typename T>() {
    kernels::cpu::max_pool1d_backward<T>(pool_geometry(grad_x.shape(), params), grad_out.data<T>(),
                                         argmax.data<int64_t>(), grad_x.data<T>());
  });
}

void avg_pool1d_cpu(const Tensor& x, const Pool1DParams& params, Tensor& out) {
  dispatch_floating(x.dtype(), "avg_pool1d", [&]<typename T>() {
    kernels::cpu::avg_pool1d_forward<T>(pool_geometry(x.shape(), params), x.data<T>(),
                                        out.data<T>());
  });
}

void avg_pool1d_backward_cpu(const Tensor& grad_out, const Pool1DParams& params, Tensor& grad_x) {
  dispatch_floating(grad_x.dtype(), "avg_pool1d_backward", [&]<typename T>() {
    kernels::cpu::avg_pool1d_backward<T>(pool_geometry(grad_x.shape(), params), grad_out.data<T>(),
                                         grad_x.data<T>());
  });
}

}  // namespace

STRAND_REGISTER_KERNELS(pooling_cpu) {
  OpKernels<MaxPool1DOp>::register_kernel(DeviceType::kCPU, max_pool1d_cpu);
  OpKernels<MaxPool1DBackwardOp>::register_kernel(DeviceType::kCPU, max_pool1d_backward_cpu);
  OpKernels<AvgPool1DOp>::register_kernel(DeviceType::kCPU, avg_pool1d_cpu);
  OpKernels<AvgPool1DBackwardOp>::register_kernel(DeviceType::kCPU, avg_pool1d_backward_cpu);
}

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

Var max_pool1d(const Var& x, const Pool1DParams& params) {
  const Shape shape = x.shape();
  auto [out, argmax] = ops::max_pool1d(x.value(), params);
  if (AttributionPass* pass = attribution_pass()) {
    // DeepLIFT (autograd/attribution.h), as tangermeme's and captum's maxpool rule: each
    // window's change max(y, y_ref) - y_ref goes to the input's chosen element and
    // y - max(y, y_ref) to the reference's; divided by the input's change where it changed
    // (the input's gradient where it did not).
    if (pass->phase() == AttributionPhase::kInputs) {
      pass->save("max_pool1d", {x.value(), out, argmax});
    } else {
      const std::vector<Tensor> input = pass->take("max_pool1d");
      STRAND_CHECK(input[0].shape() == shape,
                   "DeepLIFT: 'max_pool1d' saw {} on the inputs and {} on the references",
                   input[0].describe(), x.value().describe());
      const Tensor dx = ops::sub(input[0], x.value());
      const Tensor y_in = input[1], argmax_in = input[2];
      return make_result(
          out, "max_pool1d", {x}, [=, y_ref = out, argmax_ref = argmax](const Tensor& g) {
            const Tensor top = ops::maximum(y_in, y_ref);
            const Tensor routed =
                ops::add(ops::max_pool1d_backward(ops::mul(g, ops::sub(top, y_ref)), argmax_in,
                                                  shape, params),
                         ops::max_pool1d_backward(ops::mul(g, ops::sub(y_in, top)), argmax_ref,
                                                  shape, params));
            const Tensor gradient = ops::max_pool1d_backward(g, argmax_in, shape, params);
            return std::vector<Tensor>{ops::divide_where_changed(routed, dx, gradient)};
          });
    }
  }
  return make_result(out, "max_pool1d", {x}, [=, argmax = argmax](const Tensor& g) {
    return std::vector<Tensor>{ops::max_pool1d_backward(g, argmax, shape, params)};
  });
}

Var avg_pool1d(const Var& x, const Pool1DParams& params) {
  const Shape shape = x.shape();
  return make_result(ops::avg_pool1d(x.value(), params), "avg_pool1d", {x}, [=](const Tensor& g) {
    return std::vector<Tensor>{ops::avg_pool1d_backward(g, shape, params)};
  });
}

Var global_avg_pool1d(const Var& x) {
  STRAND_CHECK(x.dim() == 3, "global_avg_pool1d: expected (B, C, L), got {}", x.value().describe());
  return mean(x, {2}, false);
}

}  // namespace strand
