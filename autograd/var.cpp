// Var bookkeeping and the backward pass (Kahn's algorithm over the recorded graph).
#include "autograd/var.h"

#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "autograd/grad_mode.h"

namespace strand {

Var::Var(Tensor value, bool requires_grad) : impl_(std::make_shared<VarImpl>()) {
  STRAND_CHECK(value.defined(), "Var: cannot wrap an undefined tensor");
  STRAND_CHECK(!requires_grad || is_floating(value.dtype()),
               "Var: only float tensors can require gradients, got {}", value.describe());
  impl_->value = std::move(value);
  impl_->requires_grad = requires_grad;
}

const Tensor& Var::value() const {
  STRAND_CHECK(defined(), "value() of an undefined Var");
  return impl_->value;
}
Tensor& Var::mutable_value() {
  STRAND_CHECK(defined(), "mutable_value() of an undefined Var");
  return impl_->value;
}
const Tensor& Var::grad() const {
  STRAND_CHECK(defined(), "grad() of an undefined Var");
  return impl_->grad;
}
void Var::set_grad(Tensor grad) {
  STRAND_CHECK(!grad.defined() || grad.shape() == value().shape(),
               "set_grad: gradient {} does not match value {}", grad.describe(),
               value().describe());
  impl_->grad = std::move(grad);
}
void Var::zero_grad() { impl_->grad = Tensor(); }
void Var::fill_grad_zero() {
  if (impl_->grad.defined()) impl_->grad.zero_();
}
bool Var::requires_grad() const { return defined() && impl_->requires_grad; }
void Var::set_requires_grad(bool requires_grad) {
  STRAND_CHECK(is_leaf(), "set_requires_grad: only leaves can change requires_grad");
  impl_->requires_grad = requires_grad;
}
bool Var::is_leaf() const { return defined() && impl_->grad_fn == nullptr; }
Var Var::detach() const { return Var(value(), false); }

void Var::add_grad_ready_hook(GradReadyHook hook) {
  impl_->grad_ready_hooks.push_back(std::move(hook));
}
void Var::clear_grad_ready_hooks() { impl_->grad_ready_hooks.clear(); }

void Var::backward() const {
  STRAND_CHECK(value().numel() == 1,
               "backward(): {} is not a single value; pass the output gradient explicitly",
               value().describe());
  backward(Tensor::ones(value().shape(), value().dtype(), value().device()));
}

void Var::backward(const Tensor& grad_output) const {
  STRAND_CHECK(requires_grad(),
               "backward(): this Var does not require grad (no parameter "
               "reaches it, or it was computed under NoGradGuard)");
  STRAND_CHECK(grad_output.shape() == value().shape(),
               "backward(): seed gradient {} does not match output {}", grad_output.describe(),
               value().describe());
  NoGradGuard no_grad;  // gradient computations are not themselves recorded

  // Count, for every Var reachable from the root, how many recorded uses feed it a gradient.
  std::unordered_map<VarImpl*, int> pending_uses;
  std::vector<VarImpl*> stack = {impl_.get()};
  pending_uses[impl_.get()] = 0;
  while (!stack.empty()) {
    VarImpl* var = stack.back();
    stack.pop_back();
    if (!var->grad_fn) continue;
    for (const auto& input : var->grad_fn->inputs) {
      if (!input || !input->requires_grad) continue;
      auto [it, inserted] = pending_uses.try_emplace(input.get(), 0);
      ++it->second;
      if (inserted) stack.push_back(input.get());
    }
  }

  // Kahn's order: a Var runs once every use has delivered its gradient.
  std::unordered_map<VarImpl*, Tensor> incoming;
  std::unordered_set<VarImpl*> owned_sums;  // Vars whose incoming sum is a buffer of our own
  incoming[impl_.get()] = grad_output;
  std::deque<VarImpl*> ready = {impl_.get()};
  while (!ready.empty()) {
    VarImpl* var = ready.front();
    ready.pop_front();
    Tensor grad = std::move(incoming[var]);
    incoming.erase(var);
    if (!var->grad_fn) {
      // A leaf: accumulate in place into the buffer the leaf owns (the first pass copies, so
      // it never aliases an op's buffer; in place, so a step captured into a CUDA graph
      // neither allocates nor frees a gradient), then announce that the gradient is final.
      if (var->grad.defined()) {
        var->grad.add_(grad);
      } else {
        var->grad = grad.clone();
      }
      if (!var->grad_ready_hooks.empty()) {
        // A non-owning handle: the graph owns the leaf for the whole pass.
        Var leaf(std::shared_ptr<VarImpl>(std::shared_ptr<VarImpl>{}, var));
        for (auto& hook : var->grad_ready_hooks) hook(leaf);
      }
      continue;
    }
    const Node& node = *var->grad_fn;
    std::vector<Tensor> input_grads = node.backward(grad);
    STRAND_CHECK(input_grads.size() == node.inputs.size(),
                 "backward of '{}' returned {} gradients for {} inputs", node.op_name,
                 input_grads.size(), node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      VarImpl* input = node.inputs[i].get();
      if (!input || !input->requires_grad) continue;
      Tensor& input_grad = input_grads[i];
      if (input_grad.defined()) {
        STRAND_CHECK(input_grad.shape() == input->value.shape(),
                     "backward of '{}': gradient {} for input {} of shape {}", node.op_name,
                     input_grad.describe(), i, shape_to_string(input->value.shape()));
        Tensor& slot = incoming[input];
        if (!slot.defined()) {
          slot = std::move(input_grad);
        } else {
          // A second use's gradient: sum into a buffer of our own (the first may alias an
          // op's saved tensor), made on the first merge and reused for later ones.
          if (owned_sums.insert(input).second) slot = slot.clone();
          slot.add_(input_grad);
        }
      }
      if (--pending_uses[input] == 0) {
        if (!incoming[input].defined()) {
          // Every use returned "no gradient" (e.g. a relu that was closed everywhere).
          incoming[input] =
              Tensor::zeros(input->value.shape(), input->value.dtype(), input->value.device());
        }
        ready.push_back(input);
      }
    }
  }
}

Var make_result(Tensor value, const char* op_name, const std::vector<Var>& inputs,
                BackwardFn backward) {
  bool needs_grad = false;
  if (grad_enabled()) {
    for (const Var& input : inputs) needs_grad = needs_grad || input.requires_grad();
  }
  if (!needs_grad) return Var(std::move(value), false);
  auto node = std::make_shared<Node>();
  node->op_name = op_name;
  for (const Var& input : inputs) node->inputs.push_back(input.impl());
  node->backward = std::move(backward);
  auto impl = std::make_shared<VarImpl>();
  impl->value = std::move(value);
  impl->requires_grad = true;
  impl->grad_fn = std::move(node);
  return Var(std::move(impl));
}

}  // namespace strand
