// Module parameter bookkeeping.
#include "layers/module.h"

namespace strand {

Generator& default_generator() {
  static Generator generator(0);
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().set_state(seed, 0); }

std::vector<std::pair<std::string, Var>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Var>> out;
  collect("", out);
  return out;
}

void Module::collect(const std::string& prefix,
                     std::vector<std::pair<std::string, Var>>& out) const {
  for (const auto& [name, parameter] : parameters_) out.emplace_back(prefix + name, parameter);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

std::vector<Var> Module::parameters() const {
  std::vector<Var> out;
  for (auto& [name, parameter] : named_parameters()) out.push_back(parameter);
  return out;
}

std::vector<Var> Module::trainable_parameters() const {
  std::vector<Var> out;
  for (auto& [name, parameter] : named_parameters()) {
    if (parameter.requires_grad()) out.push_back(parameter);
  }
  return out;
}

int64_t Module::parameter_count() const {
  int64_t count = 0;
  for (auto& [name, parameter] : named_parameters()) count += parameter.value().numel();
  return count;
}

void Module::train(bool training) {
  training_ = training;
  for (auto& [name, child] : children_) child->train(training);
}

void Module::set_step(int64_t step) {
  for (auto& [name, child] : children_) child->set_step(step);
}

void Module::set_step_tensor(const Tensor& step) {
  for (auto& [name, child] : children_) child->set_step_tensor(step);
}

void Module::set_trainable(bool trainable) {
  for (auto& [name, parameter] : parameters_) {
    if (std::find(buffer_names_.begin(), buffer_names_.end(), name) != buffer_names_.end()) {
      continue;  // a buffer is never trained
    }
    Var handle = parameter;
    handle.set_requires_grad(trainable);
  }
  for (auto& [name, child] : children_) child->set_trainable(trainable);
}

void Module::zero_grad() {
  for (auto& [name, parameter] : named_parameters()) {
    Var handle = parameter;
    handle.zero_grad();
  }
}

void Module::to(Device device) {
  for (auto& [name, parameter] : named_parameters()) {
    Var handle = parameter;
    handle.mutable_value() = handle.value().to(device);
    if (handle.grad().defined()) handle.set_grad(handle.grad().to(device));
  }
}

void Module::reset_parameters(Generator& generator) {
  for (auto& [name, child] : children_) child->reset_parameters(generator);
}

Var Module::register_parameter(std::string name, Tensor value, bool requires_grad) {
  for (const auto& [existing, parameter] : parameters_) {
    STRAND_CHECK(existing != name, "register_parameter: '{}' is already registered", name);
  }
  Var parameter(std::move(value), requires_grad);
  parameters_.emplace_back(std::move(name), parameter);
  return parameter;
}

Var Module::register_buffer(std::string name, Tensor value) {
  buffer_names_.push_back(name);
  return register_parameter(std::move(name), std::move(value), /*requires_grad=*/false);
}

void Module::set_parameter(const std::string& name, Tensor value) {
  for (auto& [existing, parameter] : parameters_) {
    if (existing == name) {
      STRAND_CHECK(value.shape() == parameter.shape(),
                   "set_parameter '{}': new value {} does not match {}", name, value.describe(),
                   parameter.value().describe());
      parameter.mutable_value() = std::move(value);
      return;
    }
  }
  throw Error(fmt::format("set_parameter: no parameter named '{}'", name));
}

}  // namespace strand
