// BatchNorm -> ReLU -> MaxPool1D as one op: argument checks and dispatch, the CPU adapters (the
// composition of the batch_norm_relu and max_pool1d kernels) with their registration (the CUDA
// ones: ops/cuda/batch_norm_pool.cpp), and the differentiable function with its gradient rule.
#include "ops/batch_norm_pool.h"

#include "autograd/attribution.h"
#include "ops/elementwise.h"
#include "tensor/argument_checks.h"

namespace strand {
namespace {

constexpr const char* kOp = "batch_norm_relu_max_pool";

// x (B, C, L) float; weight, bias and running statistics (C) of x's dtype and device; a window
// that fits. Returns L_out.
int64_t check_args(const Tensor& x, const Tensor& weight, const Tensor& bias,
                   const BatchNormStatistics& statistics, const BatchNormOptions& options,
                   const Pool1DParams& pool) {
  ops::check_floating(kOp, x);
  ops::check_rank(kOp, "input (B, C, L)", x, 3);
  for (const Tensor* t : {&weight, &bias, &statistics.running_mean, &statistics.running_var}) {
    ops::check_defined(kOp, *t);
    ops::check_same_dtype(kOp, x, *t);
    ops::check_same_device(kOp, x, *t);
    STRAND_CHECK(t->shape() == Shape{x.size(1)},
                 "{}: input {} has {} channels but the weight, bias or running statistics are {}",
                 kOp, x.describe(), x.size(1), t->describe());
  }
  STRAND_CHECK(statistics.running_mean.is_contiguous() && statistics.running_var.is_contiguous(),
               "{}: the running statistics must be contiguous (they are updated in place)", kOp);
  STRAND_CHECK(options.eps > 0.0 && options.momentum >= 0.0 && options.momentum <= 1.0,
               "{}: need eps > 0 and momentum in [0, 1], got {} and {}", kOp, options.eps,
               options.momentum);
  STRAND_CHECK(!options.training || x.size(0) * x.size(2) > 1,
               "{}: training needs more than one value per channel, got {}", kOp, x.describe());
  STRAND_CHECK(pool.kernel >= 1 && pool.stride >= 1,
               "{}: kernel and stride must be >= 1, got kernel {} and stride {}", kOp, pool.kernel,
               pool.stride);
  const int64_t out_length =
      kernels::pool1d_out_length(x.size(2), pool.kernel, pool.stride, pool.ceil_mode);
  STRAND_CHECK(out_length > 0, "{}: input {} is shorter than the pooling window ({})", kOp,
               x.describe(), pool.kernel);
  return out_length;
}

BatchNormOptions with_relu(BatchNormOptions options) {
  options.relu = true;
  return options;
}

}  // namespace

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_relu_max_pool(
    const Tensor& x, const Tensor& weight, const Tensor& bias, BatchNormStatistics& statistics,
    const BatchNormOptions& options, const Pool1DParams& pool) {
  const int64_t out_length = check_args(x, weight, bias, statistics, options, pool);
  const Shape pooled = {x.size(0), x.size(1), out_length};
  Tensor out = Tensor::empty(pooled, x.dtype(), x.device());
  Tensor argmax = Tensor::empty(pooled, DType::kInt64, x.device());
  Tensor mean = Tensor::empty({x.size(1)}, x.dtype(), x.device());
  Tensor invstd = Tensor::empty({x.size(1)}, x.dtype(), x.device());
  dispatch<BatchNormReluMaxPoolOp>(
      x.device(), x.contiguous(), weight.contiguous(), bias.contiguous(), with_relu(options), pool,
      statistics.running_mean, statistics.running_var, out, argmax, mean, invstd);
  if (options.training) {
    statistics.num_batches_tracked.copy_(ops::affine(statistics.num_batches_tracked, 1.0, 1.0));
  }
  return {out, argmax, mean, invstd};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_relu_max_pool_backward(
    const Tensor& grad_out, const Tensor& x, const Tensor& out, const Tensor& argmax,
    const Tensor& weight, const Tensor& mean, const Tensor& invstd, const BatchNormOptions& options,
    const Pool1DParams& pool) {
  check_same_shape("batch_norm_relu_max_pool_backward", grad_out, out);
  Tensor grad_x = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor grad_weight = Tensor::empty(weight.shape(), x.dtype(), x.device());
  Tensor grad_bias = Tensor::empty(weight.shape(), x.dtype(), x.device());
  dispatch<BatchNormReluMaxPoolBackwardOp>(
      x.device(), grad_out.contiguous(), x.contiguous(), out.contiguous(), argmax.contiguous(),
      weight.contiguous(), mean, invstd, with_relu(options), pool, grad_x, grad_weight, grad_bias);
  return {grad_x, grad_weight, grad_bias};
}

}  // namespace ops

// ---- CPU adapters: the composition of the unfused kernels ----------------------------------
namespace {

void batch_norm_relu_max_pool_cpu(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                  const BatchNormOptions& options, const Pool1DParams& pool,
                                  Tensor& running_mean, Tensor& running_var, Tensor& out,
                                  Tensor& argmax, Tensor& mean, Tensor& invstd) {
  Tensor activated = Tensor::empty(x.shape(), x.dtype());
  dispatch<BatchNormForwardOp>(Device::cpu(), x, weight, bias, with_relu(options), running_mean,
                               running_var, activated, mean, invstd);
  dispatch<MaxPool1DOp>(Device::cpu(), activated, pool, out, argmax);
}

// The max-pool's backward routes grad_out to the argmax positions; the ReLU's mask there is the
// pooled output itself (each window's value is the activation at its argmax, and only those
// positions carry gradient), routed the same way.
void batch_norm_relu_max_pool_backward_cpu(const Tensor& grad_out, const Tensor& x,
                                           const Tensor& out, const Tensor& argmax,
                                           const Tensor& weight, const Tensor& mean,
                                           const Tensor& invstd, const BatchNormOptions& options,
                                           const Pool1DParams& pool, Tensor& grad_x,
                                           Tensor& grad_weight, Tensor& grad_bias) {
  Tensor routed = Tensor::empty(x.shape(), x.dtype());
  Tensor mask = Tensor::empty(x.shape(), x.dtype());
  dispatch<MaxPool1DBackwardOp>(Device::cpu(), grad_out, argmax, pool, routed);
  dispatch<MaxPool1DBackwardOp>(Device::cpu(), out, argmax, pool, mask);
  dispatch<BatchNormBackwardOp>(Device::cpu(), routed, x, mask, weight, mean, invstd,
                                with_relu(options), grad_x, grad_weight, grad_bias);
}

}  // namespace

STRAND_REGISTER_KERNELS(batch_norm_pool_cpu) {
  OpKernels<BatchNormReluMaxPoolOp>::register_kernel(DeviceType::kCPU,
                                                     batch_norm_relu_max_pool_cpu);
  OpKernels<BatchNormReluMaxPoolBackwardOp>::register_kernel(DeviceType::kCPU,
                                                             batch_norm_relu_max_pool_backward_cpu);
}

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

Var batch_norm_relu_max_pool(const Var& x, const Var& weight, const Var& bias,
                             BatchNormStatistics& statistics, bool training, double momentum,
                             double eps, const Pool1DParams& pool) {
  if (attribution_pass() != nullptr) {
    // An attribution pass needs the ReLU's and the max-pool's own rules: unfused.
    return max_pool1d(batch_norm_relu(x, weight, bias, statistics, training, momentum, eps), pool);
  }
  STRAND_CHECK(x.defined() && weight.defined() && bias.defined(),
               "{}: the input, weight and bias must be defined", kOp);
  const BatchNormOptions options{
      .training = training, .momentum = momentum, .eps = eps, .relu = true};
  const Tensor xv = x.value().contiguous();  // saved for backward: made contiguous once
  const Tensor wv = weight.value();
  auto [out, argmax, mean, invstd] =
      ops::batch_norm_relu_max_pool(xv, wv, bias.value(), statistics, options, pool);
  return make_result(
      out, kOp, {x, weight, bias},
      [=, out = out, argmax = argmax, mean = mean, invstd = invstd](const Tensor& g) {
        auto [grad_x, grad_weight, grad_bias] = ops::batch_norm_relu_max_pool_backward(
            g, xv, out, argmax, wv, mean, invstd, options, pool);
        return std::vector<Tensor>{grad_x, grad_weight, grad_bias};
      });
}

}  // namespace strand
