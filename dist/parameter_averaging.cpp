// Periodic parameter (and optimizer state) averaging.
#include "dist/parameter_averaging.h"

#include <fmt/format.h>

namespace strand::dist {
namespace {

// Averages float tensors in place over ranks, all reductions in flight together.
void average_in_place(Communicator& communicator, std::vector<Tensor>& tensors, const char* what) {
  std::vector<std::unique_ptr<Work>> pending;
  std::vector<std::pair<Tensor, Tensor>> staged;  // (destination, contiguous copy)
  for (size_t i = 0; i < tensors.size(); ++i) {
    Tensor& tensor = tensors[i];
    if (!is_floating(tensor.dtype())) continue;
    Tensor target = tensor.is_contiguous() ? tensor : tensor.contiguous();
    if (!tensor.is_contiguous()) staged.emplace_back(tensor, target);
    pending.push_back(communicator.all_reduce_async(
        target, ReduceOp::kAverage, fmt::format("{} ({} of {})", what, i + 1, tensors.size())));
  }
  for (auto& work : pending) work->wait();
  for (auto& [destination, copy] : staged) destination.copy_(copy);
}

}  // namespace

ParameterAveraging::ParameterAveraging(std::shared_ptr<Communicator> communicator,
                                       ParameterAveragingOptions options)
    : StrategyBase(std::move(communicator)), options_(options) {
  STRAND_CHECK(options_.average_every >= 1,
               "ParameterAveraging: average_every must be at least 1, got {}",
               options_.average_every);
}

void ParameterAveraging::on_train_begin(const std::vector<Var>& parameters, Optimizer& optimizer) {
  if (options_.broadcast_initial_parameters) broadcast_parameters(parameters);
  parameters_ = optimizer.parameters();
  optimizer_ = &optimizer;
  steps_since_average_ = 0;
}

void ParameterAveraging::after_step() {
  if (++steps_since_average_ >= options_.average_every) average();
}

void ParameterAveraging::on_epoch_end() {
  if (steps_since_average_ > 0) average();
}

void ParameterAveraging::average() {
  std::vector<Tensor> values;
  for (Var& parameter : parameters_) values.push_back(parameter.mutable_value());
  average_in_place(*communicator_, values, "parameter average");
  if (options_.average_optimizer_state && optimizer_ != nullptr) {
    OptimizerState state = optimizer_->state();  // a deep copy, in name order on every rank
    std::vector<Tensor> buffers;
    for (auto& [name, tensor] : state) {
      if (name != "step") buffers.push_back(tensor);
    }
    average_in_place(*communicator_, buffers, "optimizer state average");
    optimizer_->load_state(state);
  }
  steps_since_average_ = 0;
  ++averages_;
}

}  // namespace strand::dist
