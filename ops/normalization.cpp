// Batch normalisation: argument checks and dispatch, the CPU adapters with their
// registration (the CUDA ones: ops/cuda/normalization.cpp), and the differentiable functions with
// their gradient rule.
#include "ops/normalization.h"

#include <algorithm>

#include "autograd/attribution.h"
#include "core/dtype_dispatch.h"
#include "kernels/cpu/normalization.h"
#include "ops/elementwise.h"
#include "tensor/argument_checks.h"

namespace strand {
namespace {

// x (B, C) or (B, C, L) float; weight, bias and running statistics (C) of x's dtype and device.
void check_batch_norm_args(const Tensor& x, const Tensor& weight, const Tensor& bias,
                           const BatchNormStatistics& statistics, const BatchNormOptions& options) {
  constexpr const char* op = "batch_norm";
  ops::check_floating(op, x);
  STRAND_CHECK(x.dim() == 2 || x.dim() == 3, "batch_norm: expected (B, C) or (B, C, L), got {}",
               x.describe());
  const int64_t channels = x.size(1);
  for (const Tensor* t : {&weight, &bias, &statistics.running_mean, &statistics.running_var}) {
    ops::check_defined(op, *t);
    ops::check_same_dtype(op, x, *t);
    ops::check_same_device(op, x, *t);
    STRAND_CHECK(t->shape() == Shape{channels},
                 "batch_norm: input {} has {} channels but the weight, bias or running statistics "
                 "are {}",
                 x.describe(), channels, t->describe());
  }
  STRAND_CHECK(statistics.running_mean.is_contiguous() && statistics.running_var.is_contiguous(),
               "batch_norm: the running statistics must be contiguous (they are updated in place)");
  STRAND_CHECK(options.eps > 0.0 && options.momentum >= 0.0 && options.momentum <= 1.0,
               "batch_norm: need eps > 0 and momentum in [0, 1], got {} and {}", options.eps,
               options.momentum);
  STRAND_CHECK(!options.training || x.numel() / std::max<int64_t>(channels, 1) > 1,
               "batch_norm: training needs more than one value per channel, got {}", x.describe());
}

}  // namespace

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

std::tuple<Tensor, Tensor, Tensor> batch_norm(const Tensor& x, const Tensor& weight,
                                              const Tensor& bias, BatchNormStatistics& statistics,
                                              const BatchNormOptions& options) {
  check_batch_norm_args(x, weight, bias, statistics, options);
  const int64_t channels = x.size(1);
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor mean = Tensor::empty({channels}, x.dtype(), x.device());
  Tensor invstd = Tensor::empty({channels}, x.dtype(), x.device());
  dispatch<BatchNormForwardOp>(x.device(), x.contiguous(), weight.contiguous(), bias.contiguous(),
                               options, statistics.running_mean, statistics.running_var, out, mean,
                               invstd);
  if (options.training) {
    statistics.num_batches_tracked.copy_(ops::affine(statistics.num_batches_tracked, 1.0, 1.0));
  }
  return {out, mean, invstd};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& x,
                                                       const Tensor& out, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& invstd,
                                                       const BatchNormOptions& options) {
  check_same_shape("batch_norm_backward", grad_out, x);
  Tensor grad_x = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor grad_weight = Tensor::empty(weight.shape(), x.dtype(), x.device());
  Tensor grad_bias = Tensor::empty(weight.shape(), x.dtype(), x.device());
  dispatch<BatchNormBackwardOp>(x.device(), grad_out.contiguous(), x.contiguous(),
                                options.relu ? out.contiguous() : Tensor(), weight.contiguous(),
                                mean, invstd, options, grad_x, grad_weight, grad_bias);
  return {grad_x, grad_weight, grad_bias};
}

}  // namespace ops

// ---- CPU adapters: Tensors to kernels/cpu/normalization.h --------------------------------------
namespace {

template <typename T>
const T* optional_data(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

void batch_norm_forward_cpu(const Tensor& x, const Tensor& weight, const Tensor& bias,
                            const BatchNormOptions& options, Tensor& running_mean,
                            Tensor& running_var, Tensor& out, Tensor& mean, Tensor& invstd) {
  const auto g = batch_norm_geometry(x.shape());
  dispatch_floating(x.dtype(), "batch_norm_forward", [&]<typename T>() {
    if (options.training) {
      kernels::cpu::batch_norm_forward_training<T>(g, x.data<T>(), weight.data<T>(), bias.data<T>(),
                                                   options.momentum, options.eps, options.relu,
                                                   running_mean.data<T>(), running_var.data<T>(),
                                                   out.data<T>(), mean.data<T>(), invstd.data<T>());
    } else {
      kernels::cpu::batch_norm_forward_inference<T>(
          g, x.data<T>(), weight.data<T>(), bias.data<T>(), running_mean.data<T>(),
          running_var.data<T>(), options.eps, options.relu, out.data<T>(), mean.data<T>(),
          invstd.data<T>());
    }
  });
}

void batch_norm_backward_cpu(const Tensor& grad_out, const Tensor& x, const Tensor& out,
                             const Tensor& weight, const Tensor& mean, const Tensor& invstd,
                             const BatchNormOptions& options, Tensor& grad_x, Tensor& grad_weight,
                             Tensor& grad_bias) {
  const auto g = batch_norm_geometry(x.shape());
  dispatch_floating(x.dtype(), "batch_norm_backward", [&]<typename T>() {
    kernels::cpu::batch_norm_backward<T>(g, grad_out.data<T>(), x.data<T>(), optional_data<T>(out),
                                         weight.data<T>(), mean.data<T>(), invstd.data<T>(),
                                         options.training, options.relu, grad_x.data<T>(),
                                         grad_weight.data<T>(), grad_bias.data<T>());
  });
}

}  // namespace

STRAND_REGISTER_KERNELS(normalization_cpu) {
  OpKernels<BatchNormForwardOp>::register_kernel(DeviceType::kCPU, batch_norm_forward_cpu);
  OpKernels<BatchNormBackwardOp>::register_kernel(DeviceType::kCPU, batch_norm_backward_cpu);
}

// ---- Differentiable: forward and gradient rule side by side ---------------------------------
namespace {

Var batch_norm_with(const Var& x, const Var& weight, const Var& bias,
                    BatchNormStatistics& statistics, const BatchNormOptions& options) {
  STRAND_CHECK(x.defined() && weight.defined() && bias.defined(),
               "batch_norm: the input, weight and bias must be defined");
  const Tensor xv = x.value().contiguous();  // saved for backward: made contiguous once
  const Tensor wv = weight.value();
  auto [out, mean, invstd] = ops::batch_norm(xv, wv, bias.value(), statistics, options);
  const char* name = options.relu ? "batch_norm_relu" : "batch_norm";
  const Tensor relu_mask = options.relu ? out : Tensor();  // the output, kept only for relu
  return make_result(out, name, {x, weight, bias},
                     [=, mean = mean, invstd = invstd](const Tensor& g) {
                       auto [grad_x, grad_weight, grad_bias] =
                           ops::batch_norm_backward(g, xv, relu_mask, wv, mean, invstd, options);
                       return std::vector<Tensor>{grad_x, grad_weight, grad_bias};
                     });
}

}  // namespace

Var batch_norm(const Var& x, const Var& weight, const Var& bias, BatchNormStatistics& statistics,
               bool training, double momentum, double eps) {
  return batch_norm_with(x, weight, bias, statistics,
                         {.training = training, .momentum = momentum, .eps = eps, .relu = false});
}

Var batch_norm_relu(const Var& x, const Var& weight, const Var& bias,
                    BatchNormStatistics& statistics, bool training, double momentum, double eps) {
  if (attribution_pass() != nullptr) {
    // An attribution pass needs the ReLU's own rule (autograd/attribution.h): unfused.
    return relu(batch_norm(x, weight, bias, statistics, training, momentum, eps));
  }
  return batch_norm_with(x, weight, bias, statistics,
                         {.training = training, .momentum = momentum, .eps = eps, .relu = true});
}

}  // namespace strand
