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

/// The shared state behind a Var (Vars are cheap handles to it).
struct VarImpl {
  Tensor value;                                 ///< the value
  Tensor grad;                                  ///< accumulated gradient (undefined until backward)
  bool requires_grad = false;                   ///< whether backward computes a gradient for it
  std::shared_ptr<Node> grad_fn;                ///< the op that made it; null for leaves
  std::vector<GradReadyHook> grad_ready_hooks;  ///< see Var::add_grad_ready_hook
};

/// The gradient rule of one op application: given d(loss)/d(output), returns d(loss)/d(input)
/// for every input (undefined where an input needs none).
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output)>;

/// One recorded op application: its inputs and its gradient rule.
struct Node {
  std::string op_name;                           ///< e.g. "conv1d"
  std::vector<std::shared_ptr<VarImpl>> inputs;  ///< the op's inputs, in order
  BackwardFn backward;                           ///< maps d(loss)/d(output) to d(loss)/d(inputs)
};

/// A Tensor that takes part in reverse-mode autograd (a shared handle: copies alias).
class Var {
 public:
  /// An undefined Var.
  Var() = default;
  /// A leaf holding `value`; parameters pass requires_grad = true.
  explicit Var(Tensor value, bool requires_grad = false);

  /// False for a default-constructed Var.
  bool defined() const { return impl_ != nullptr; }
  /// The current value.
  const Tensor& value() const;
  /// The value for in-place updates (optimizers); never recorded by autograd.
  Tensor& mutable_value();
  /// The accumulated gradient (undefined until a backward pass reaches this Var).
  const Tensor& grad() const;
  /// Replaces the accumulated gradient (e.g. after an all-reduce).
  void set_grad(Tensor grad);
  /// Drops the accumulated gradient.
  void zero_grad();
  /// Sets the accumulated gradient to zero in place, keeping its memory (no-op when there is
  /// none). A step captured into a CUDA graph must free nothing it did not allocate, and the
  /// next backward pass then accumulates into the same buffer.
  void fill_grad_zero();
  /// Whether backward() computes a gradient for this Var.
  bool requires_grad() const;
  /// Marks a leaf as trainable (true) or frozen (false).
  void set_requires_grad(bool requires_grad);
  /// True for Vars not made by a recorded op (parameters, inputs).
  bool is_leaf() const;
  /// A leaf sharing this Var's value but cut from the graph.
  Var detach() const;

  /// The value's shape.
  const Shape& shape() const { return value().shape(); }
  /// The value's rank.
  int64_t dim() const { return value().dim(); }
  /// The value's extent along dimension `d`.
  int64_t size(int64_t d) const { return value().size(d); }
  /// The value's element type.
  DType dtype() const { return value().dtype(); }
  /// The device holding the value.
  Device device() const { return value().device(); }

  /// Back-propagates from this Var: a one-element Var seeds with 1, otherwise pass the seed.
  void backward() const;
  /// Back-propagates with the seed `grad_output` (this Var's shape).
  void backward(const Tensor& grad_output) const;

  /// Runs `hook` whenever this leaf's gradient for a backward pass is final.
  void add_grad_ready_hook(GradReadyHook hook);
  /// Removes every grad-ready hook.
  void clear_grad_ready_hooks();

  /// The shared state (for autograd internals).
  const std::shared_ptr<VarImpl>& impl() const { return impl_; }
  /// Wraps existing state (for autograd internals).
  explicit Var(std::shared_ptr<VarImpl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<VarImpl> impl_;
};

/// Wraps an op's output: when grad mode is on and an input requires grad, the result
/// records a Node with `backward`; otherwise it is a plain leaf without gradient.
Var make_result(Tensor value, const char* op_name, const std::vector<Var>& inputs,
                BackwardFn backward);

}  // namespace strand
