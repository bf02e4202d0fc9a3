// Optimizer base: stepping, gradients, and state save/restore.
#include "optim/optimizer.h"

#include "autograd/grad_mode.h"

namespace strand {

Optimizer::Optimizer(std::vector<Var> parameters, double learning_rate)
    : parameters_(std::move(parameters)), learning_rate_(learning_rate) {
  STRAND_CHECK(learning_rate > 0.0, "optimizer: learning rate must be positive, got {}",
               learning_rate);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    STRAND_CHECK(parameters_[i].defined() && is_floating(parameters_[i].dtype()),
                 "optimizer: parameter {} is not a float tensor", i);
  }
}

void Optimizer::step() {
  NoGradGuard no_grad;
  ++step_count_;
  std::vector<size_t> active;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const Var& parameter = parameters_[i];
    if (parameter.requires_grad() && parameter.grad().defined()) active.push_back(i);
  }
  update_all(active);
}

void Optimizer::update_all(const std::vector<size_t>& active) {
  for (size_t i : active) update(i, parameters_[i]);
}

void Optimizer::set_learning_rate(double learning_rate) {
  learning_rate_ = learning_rate;
  on_learning_rate_changed();
}

void Optimizer::zero_grad(GradReset how) {
  for (Var& parameter : parameters_) {
    if (how == GradReset::kDrop) {
      parameter.zero_grad();
    } else {
      parameter.fill_grad_zero();
    }
  }
}

Tensor& Optimizer::buffer(size_t index, const std::string& name) {
  const std::string key = std::to_string(index) + "." + name;
  auto it = buffers_.find(key);
  if (it == buffers_.end()) {
    const Tensor& value = parameters_[index].value();
    it = buffers_.emplace(key, Tensor::zeros(value.shape(), value.dtype(), value.device())).first;
  }
  return it->second;
}

bool Optimizer::has_buffer(size_t index, const std::string& name) const {
  return buffers_.count(std::to_string(index) + "." + name) > 0;
}

OptimizerState Optimizer::state() const {
  OptimizerState out;
  out["step"] = Tensor::from_vector<int64_t>({step_count_}, {1});
  for (const auto& [key, value] : buffers_) out[key] = value.to(Device::cpu()).clone();
  return out;
}

void Optimizer::load_state(const OptimizerState& state) {
  auto step = state.find("step");
  STRAND_CHECK(step != state.end(), "{} state: missing 'step'", name());
  OptimizerState restored;
  for (const auto& [key, value] : state) {
    if (key == "step") continue;
    const size_t dot = key.find('.');
    STRAND_CHECK(dot != std::string::npos, "{} state: unexpected entry '{}'", name(), key);
    const size_t index = std::stoul(key.substr(0, dot));
    STRAND_CHECK(index < parameters_.size(), "{} state: '{}' names parameter {} of {}", name(), key,
                 index, parameters_.size());
    const Tensor& parameter = parameters_[index].value();
    STRAND_CHECK(value.shape() == parameter.shape(),
                 "{} state: '{}' has shape {} but parameter {} is {}", name(), key,
                 shape_to_string(value.shape()), index, parameter.describe());
    restored[key] = value.to(parameter.dtype()).to(parameter.device()).clone();
  }
  step_count_ = static_cast<int64_t>(step->second.item());
  buffers_ = std::move(restored);
  on_state_loaded();
}

}  // namespace strand
