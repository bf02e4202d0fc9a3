// Targets of explanations and the batched evaluation of a model on base codes.
#include "explain/target.h"

#include <fmt/format.h>

#include <algorithm>

#include "alternates/parallel_units.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "ops/softmax.h"
#include "train/evaluation.h"

namespace strand::explain {

TargetShape check_target(const Model& model, int64_t length, const Target& target) {
  const std::vector<std::string> names = model.output_names();
  STRAND_CHECK(target.output < names.size(), "explain: the model has no output {} (it has {})",
               target.output, names.size());
  InputShapes inputs;
  inputs.sequence = {length};
  const std::vector<Shape> shapes = model.output_shapes(inputs);
  const Shape& shape = shapes.at(target.output);
  const Activation activation = model.output_activation(target.output);
  TargetShape result;
  result.output_name = names[target.output];
  STRAND_CHECK(shape.size() == 1 || shape.size() == 2,
               "explain: output '{}' gives {} per sequence; explanations need one value per task "
               "(T) or a profile (S, L)",
               result.output_name, shape_to_string(shape));
  result.tasks = shape[0];
  result.profile = shape.size() == 2 && activation == Activation::kSoftmax;
  STRAND_CHECK(!(result.profile && target.activation),
               "explain: output '{}' is a profile (a softmax over positions); it is explained by "
               "its mean-centred logits weighted by the predicted profile, not by its predictions",
               result.output_name);
  STRAND_CHECK(target.task >= -1 && target.task < result.tasks,
               "explain: output '{}' has {} task(s); task {} does not exist", result.output_name,
               result.tasks, target.task);
  return result;
}

Var output_task_values(const Var& output, Activation activation, const Target& target) {
  Var z = output;
  if (z.dim() == 3 && activation == Activation::kSoftmax) {
    // (B, S, Lp): sum_l softmax(z)_l * (z_l - mean(z)), the softmax a constant (bpnet-lite's
    // and chrombpnet's profile wrapper).
    const Var weights(ops::softmax(z.value(), 2));
    const Var centred = sub(z, mean(z, {2}, /*keepdim=*/true));
    return sum(mul(centred, weights), {2});
  }
  if (target.activation) z = apply_activation(activation, z);
  if (z.dim() == 3) return sum(z, {2});
  STRAND_CHECK(z.dim() == 2, "explain: output {} gives {}; expected (B, T) or (B, S, L)",
               target.output, z.value().describe());
  return z;
}

Var task_values(Model& model, const Var& sequence, const Target& target) {
  ModelInputs inputs;
  const Device device = train::model_device(model);
  inputs.sequence =
      sequence.value().device() == device ? sequence : Var(sequence.value().to(device));
  const std::vector<Var> outputs = model.forward_outputs(inputs);
  STRAND_CHECK(target.output < outputs.size(), "explain: the model has no output {}",
               target.output);
  return output_task_values(outputs[target.output], model.output_activation(target.output), target);
}

Var select_target(const Var& values, const Target& target) {
  if (target.task < 0) return sum(values, {1});
  return reshape(slice(values, 1, target.task, target.task + 1), {values.size(0)});
}

Var target_values(Model& model, const Var& sequence, const Target& target) {
  return select_target(task_values(model, sequence, target), target);
}

Tensor predict_target(Model& model, const Tensor& codes, const Target& target, int64_t batch_size,
                      bool each_task) {
  STRAND_CHECK(codes.dim() == 2 && codes.dtype() == DType::kUInt8,
               "explain: expected base codes (N, L) uint8, got {}", codes.describe());
  STRAND_CHECK(batch_size >= 1, "explain: batch size must be >= 1, got {}", batch_size);
  const bool was_training = model.is_training();
  model.eval();
  // A Graph makes its plan on first use: here, before the threads share it.
  model.output_activation(target.output);
  const alternates::DeviceUnits device_units(!train::model_device(model).is_cpu());
  const int64_t n = codes.size(0);
  const int64_t batches = (n + batch_size - 1) / batch_size;
  std::vector<Tensor> parts(static_cast<size_t>(batches));
  try {
    alternates::for_each_unit(batches, [&](int64_t unit) {
      NoGradGuard no_grad;  // grad mode is per thread
      const int64_t start = unit * batch_size;
      const int64_t end = std::min(n, start + batch_size);
      const Var batch(codes.slice(0, start, end).contiguous());
      const Var values = each_task && target.task < 0 ? task_values(model, batch, target)
                                                      : target_values(model, batch, target);
      parts[static_cast<size_t>(unit)] = values.value().to(Device::cpu()).contiguous();
    });
  } catch (...) {
    model.train(was_training);
    throw;
  }
  model.train(was_training);
  if (parts.empty()) {
    return Tensor::zeros(each_task && target.task < 0 ? Shape{0, 0} : Shape{0});
  }
  return parts.size() == 1 ? parts[0] : ops::concat(parts, 0);
}

ExplainScope::ExplainScope(Model& model) : model_(model), was_training_(model.is_training()) {
  model.eval();
  for (const auto& [name, parameter] : model.named_parameters()) {
    requires_grad_.emplace_back(parameter, parameter.requires_grad());
    Var handle = parameter;
    handle.set_requires_grad(false);
  }
}

ExplainScope::~ExplainScope() {
  for (auto& [parameter, requires_grad] : requires_grad_)
    parameter.set_requires_grad(requires_grad);
  model_.train(was_training_);
}

}  // namespace strand::explain
