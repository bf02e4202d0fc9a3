// Var: a Tensor that takes part in reverse-mode autograd. A Var made by an op remembers the
// Node that made it (its inputs and the rule for their gradients); backward() walks those
// nodes in topological order, iteratively, and accumulates gradients into the leaves.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace strand {

class Var;
struct Node;

/// Called when a leaf's gradient for the current backward pass is final (all its
/// contributions have arrived). Data-parallel training starts its all-reduce from here.
using GradReadyHook = std::function<void(Var& leaf)>;

struct VarImpl {
  Tensor value;
  Tensor grad;
  bool requires_grad = false;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  std::vector<GradReadyHook> grad_ready_hooks;
};

/// The gradient rule of one op application: given d(loss)/d(output), returns d(loss)/d(input)
/// for every input (undefined where an input needs none).
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output)>;

struct Node {
  std::string op_name;
  std::vector<std::shared_ptr<VarImpl>> inputs;
  BackwardFn backward;
};

class Var {
 public:
  /// An undefined Var.
  Var() = default;
  /// A leaf holding `value`; parameters pass requires_grad = true.
  explicit Var(Tensor value, bool requires_grad = false);

  bool defined() const { return impl_ != nullptr; }
  const Tensor& value() const;
  /// The value for in-place updates (optimizers); never recorded by autograd.
  Tensor& mutable_value();
  /// The accumulated gradient (undefined until a backward pass reaches this Var).
  const Tensor& grad() const;
  void set_grad(Tensor grad);
  /// Drops the accumulated gradient.
  void zero_grad();
  bool requires_grad() const;
  void set_requires_grad(bool requires_grad);
  bool is_leaf() const;
  /// A leaf sharing this Var's value but cut from the graph.
  Var detach() const;

  const Shape& shape() const { return value().shape(); }
  int64_t dim() const { return value().dim(); }
  int64_t size(int64_t d) const { return value().size(d); }
  DType dtype() const { return value().dtype(); }
  Device device() const { return value().device(); }

  /// Back-propagates from this Var: a one-element Var seeds with 1, otherwise pass the seed.
  void backward() const;
  void backward(const Tensor& grad_output) const;

  void add_grad_ready_hook(GradReadyHook hook);
  void clear_grad_ready_hooks();

  const std::shared_ptr<VarImpl>& impl() const { return impl_; }
  explicit Var(std::shared_ptr<VarImpl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<VarImpl> impl_;
};

/// Wraps an op's output: when grad mode is on and an input requires grad, the result
/// records a Node with `backward`; otherwise it is a plain leaf without gradient.
Var make_result(Tensor value, const char* op_name, const std::vector<Var>& inputs,
                BackwardFn backward);

}  // namespace strand
