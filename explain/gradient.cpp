// Gradient and input x gradient attributions.
#include "explain/gradient.h"

#include <algorithm>

#include "alternates/parallel_units.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "explain/deep_lift_shap.h"
#include "ops/conv1d.h"
#include "ops/shape.h"
#include "train/evaluation.h"

namespace strand::explain {

Tensor gradient(Model& model, const Tensor& codes_in, const GradientOptions& options) {
  STRAND_CHECK(codes_in.dim() == 2 && codes_in.dtype() == DType::kUInt8,
               "gradient: expected base codes (N, L) uint8, got {}", codes_in.describe());
  STRAND_CHECK(options.batch_size >= 1, "gradient: batch size must be >= 1, got {}",
               options.batch_size);
  const Tensor codes = codes_in.to(Device::cpu()).contiguous();
  const int64_t n = codes.size(0), length = codes.size(1);
  check_target(model, length, options.target);
  ExplainScope scope(model);
  model.output_activation(options.target.output);  // a Graph's plan, made before the threads
  const Device device = train::model_device(model);
  const alternates::DeviceUnits device_units(!device.is_cpu());
  const int64_t batches = (n + options.batch_size - 1) / options.batch_size;
  std::vector<Tensor> parts(static_cast<size_t>(batches));
  // Each batch is a unit of work (alternates/parallel_units.h).
  alternates::for_each_unit(batches, [&](int64_t unit) {
    const bool grad_was_enabled = grad_enabled();  // grad mode is per thread
    set_grad_enabled(true);
    try {
      const int64_t start = unit * options.batch_size;
      const int64_t end = std::min(n, start + options.batch_size);
      Var x(ops::one_hot(codes.slice(0, start, end).contiguous()).to(device), true);
      const Var f = target_values(model, x, options.target);
      f.backward(Tensor::ones(f.shape(), f.dtype(), f.device()));
      parts[static_cast<size_t>(unit)] =
          x.grad().to(Device::cpu()).to(DType::kFloat32).contiguous();
    } catch (...) {
      set_grad_enabled(grad_was_enabled);
      throw;
    }
    set_grad_enabled(grad_was_enabled);
  });
  if (parts.empty()) return Tensor::zeros({0, 4, length});
  return parts.size() == 1 ? parts[0] : ops::concat(parts, 0);
}

Tensor input_x_gradient(Model& model, const Tensor& codes, const GradientOptions& options) {
  return actual_contributions(gradient(model, codes, options), codes);
}

}  // namespace strand::explain
