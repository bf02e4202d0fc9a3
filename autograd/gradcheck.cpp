// Central-difference gradient checking.
#include "autograd/gradcheck.h"

#include <cmath>

#include "autograd/grad_mode.h"

namespace strand {
namespace {

// Offset (in elements) of the i-th element, in row-major order, of a strided tensor.
int64_t element_offset(const Tensor& t, int64_t index) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (index % t.shape()[d]) * t.strides()[d];
    index /= t.shape()[d];
  }
  return offset;
}

// The scalar gradcheck differentiates: the output itself, or sum(output * projection),
// summed on the host in float64 (autograd/ knows no ops).
double scalar_value(const Var& out, const Tensor& projection) {
  NoGradGuard no_grad;
  if (!projection.defined()) return out.value().item();
  const Tensor values = out.value().to(Device::cpu()).to(DType::kFloat64).contiguous();
  const double* v = values.data<double>();
  const double* r = projection.data<double>();
  double total = 0.0;
  for (int64_t e = 0; e < values.numel(); ++e) total += v[e] * r[e];
  return total;
}

}  // namespace

GradcheckResult gradcheck(const std::function<Var(const std::vector<Var>&)>& fn,
                          const std::vector<Var>& inputs, const GradcheckOptions& options) {
  for (const Var& input : inputs) {
    STRAND_CHECK(!input.requires_grad() || input.dtype() == DType::kFloat64,
                 "gradcheck: inputs that require grad must be float64, got {}",
                 input.value().describe());
    STRAND_CHECK(!input.requires_grad() || input.device().is_cpu(),
                 "gradcheck: inputs must be on the CPU, got {}", input.value().describe());
  }
  // Analytic gradients.
  for (Var input : inputs) {
    if (input.requires_grad()) input.zero_grad();
  }
  Var out = fn(inputs);
  Tensor projection;
  if (out.value().numel() != 1) {
    // d sum(out * R) / d out = R: backward from R exercises every output direction.
    Generator generator(options.seed);
    projection = Tensor::uniform(out.shape(), -1.0, 1.0, generator, DType::kFloat64);
    out.backward(projection.to(out.dtype()).to(out.device()));
  } else {
    out.backward();
  }

  GradcheckResult result;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad()) continue;
    Tensor value = inputs[i].value();
    const Tensor analytic = inputs[i].grad().defined()
                                ? inputs[i].grad().contiguous()
                                : Tensor::zeros(value.shape(), DType::kFloat64);
    const double* analytic_data = analytic.data<double>();
    double* base = static_cast<double*>(value.storage()->data());
    for (int64_t e = 0; e < value.numel(); ++e) {
      double& element = base[value.offset() + element_offset(value, e)];
      const double original = element;
      element = original + options.eps;
      const double plus = scalar_value(fn(inputs), projection);
      element = original - options.eps;
      const double minus = scalar_value(fn(inputs), projection);
      element = original;
      const double numeric = (plus - minus) / (2.0 * options.eps);
      const double error = std::abs(numeric - analytic_data[e]);
      result.max_abs_error = std::max(result.max_abs_error, error);
      if (error > options.atol + options.rtol * std::abs(numeric) && result.ok) {
        result.ok = false;
        result.message =
            fmt::format("input {} element {}: analytic {:.10g} vs numeric {:.10g} (error {:.3g})",
                        i, e, analytic_data[e], numeric, error);
      }
    }
  }
  return result;
}

}  // namespace strand
