// Optimizer base: stepping, gradients, and state save/restore.
#include "optim/optimizer.h"

#include "autograd/grad_mode.h"
#include "core/parse_number.h"
#include "ops/optimizer_updates.h"

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
  if (!active.empty() && parameters_[active.front()].device().is_cuda()) {
    const Device device = parameters_[active.front()].device();
    if (!schedule_.defined() || schedule_.device() != device) {
      // The steps taken before this one: the advance below counts this one. Made from host
      // values, so never inside a CUDA graph capture (a copy from pageable memory is refused
      // there): a warm-up step creates it.
      schedule_ =
          Tensor::from_vector<double>({learning_rate_, static_cast<double>(step_count_ - 1)}, {2})
              .to(device);
    }
    ops::advance_schedule(schedule_);
  }
  update_all(active);
}

const Tensor& Optimizer::schedule_for(const Var& parameter) const {
  return schedule_.defined() && parameter.device() == schedule_.device() ? schedule_ : no_schedule_;
}

void Optimizer::update_all(const std::vector<size_t>& active) {
  for (size_t i : active) update(i, parameters_[i]);
}

void Optimizer::set_learning_rate(double learning_rate) {
  if (learning_rate == learning_rate_) return;
  learning_rate_ = learning_rate;
  // A fill on the device's stream: ordered before the next step, replayed or not.
  if (schedule_.defined()) schedule_.slice(0, 0, 1).fill_(learning_rate_);
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
    // "<index>.<buffer>", the index in full: "1x.m" is not parameter 1's.
    const std::optional<int64_t> parsed =
        dot == std::string::npos ? std::nullopt : parse_int64(std::string_view(key).substr(0, dot));
    STRAND_CHECK(parsed.has_value(), "{} state: unexpected entry '{}' (expected <index>.<buffer>)",
                 name(), key);
    STRAND_CHECK(*parsed >= 0 && *parsed < static_cast<int64_t>(parameters_.size()),
                 "{} state: '{}' names parameter {} of {}", name(), key, *parsed,
                 parameters_.size());
    const auto index = static_cast<size_t>(*parsed);
    const Tensor& parameter = parameters_[index].value();
    STRAND_CHECK(value.shape() == parameter.shape(),
                 "{} state: '{}' has shape {} but parameter {} is {}", name(), key,
                 shape_to_string(value.shape()), index, parameter.describe());
    STRAND_CHECK(value.dtype() == parameter.dtype(),
                 "{} state: '{}' has dtype {} but parameter {} is {}", name(), key,
                 dtype_name(value.dtype()), index, dtype_name(parameter.dtype()));
    restored[key] = value.to(parameter.device()).clone();
  }
  const Tensor& step_value = step->second;
  STRAND_CHECK(step_value.dtype() == DType::kInt64 && step_value.numel() == 1,
               "{} state: 'step' must be one int64, found {}", name(), step_value.describe());
  const int64_t steps = step_value.to(Device::cpu()).data<int64_t>()[0];
  STRAND_CHECK(steps >= 0, "{} state: 'step' is {}, expected a count >= 0", name(), steps);
  step_count_ = steps;
  buffers_ = std::move(restored);
  schedule_ = Tensor();  // made again from the restored step at the next step
}

}  // namespace strand
