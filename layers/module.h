// Module: the base of every layer and model. It owns named parameters and named submodules;
// names join with dots (e.g. "0.weight"), which is how checkpoints address parameters.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/var.h"
#include "tensor/generator.h"

namespace strand {

/// The process-wide generator used to initialise layers that are not given one (like
/// torch.manual_seed). Seed it with manual_seed() for reproducible models.
Generator& default_generator();
void manual_seed(uint64_t seed);

/// The base of every layer and model: named parameters and named submodules.
class Module {
 public:
  virtual ~Module() = default;
  Module() = default;
  /// Copies share parameters (Vars are handles).
  Module(const Module&) = default;
  /// Copies share parameters (Vars are handles).
  Module& operator=(const Module&) = default;
  /// Moves the parameters and submodules.
  Module(Module&&) = default;
  /// Moves the parameters and submodules.
  Module& operator=(Module&&) = default;

  /// All parameters, depth first in registration order, with dotted names.
  std::vector<std::pair<std::string, Var>> named_parameters() const;
  /// All parameters, in named_parameters() order.
  std::vector<Var> parameters() const;
  /// Parameters that require grad (the ones an optimizer should update).
  std::vector<Var> trainable_parameters() const;
  /// The direct submodules with their names.
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named_children() const {
    return children_;
  }
  /// The number of scalars in all parameters.
  int64_t parameter_count() const;

  /// Training mode (the default) versus evaluation mode, recursively.
  void train(bool training = true);
  /// Evaluation mode, recursively.
  void eval() { train(false); }
  /// Whether this module is in training mode.
  bool is_training() const { return training_; }

  /// The training step the next forward pass belongs to, recursively: stochastic layers
  /// (Dropout) draw their masks from (their seed, step). fit() sets it before every step, so a
  /// resumed run repeats the uninterrupted one.
  virtual void set_step(int64_t step);
  /// Makes stochastic layers read the training step from `step`, a one-element int64 tensor on
  /// the layer's device, where their kernels run, instead of the value of set_step(): a step
  /// captured into a CUDA graph then draws a new mask on every replay (fit() writes the tensor
  /// before each step). Recursive; an undefined tensor returns them to set_step()'s value.
  virtual void set_step_tensor(const Tensor& step);

  /// Freezes (requires_grad = false) or unfreezes every parameter, recursively.
  void set_trainable(bool trainable);
  /// Drops every parameter's gradient, recursively.
  void zero_grad();
  /// Moves every parameter to `device`.
  void to(Device device);
  /// Re-draws the parameters from `generator` (each layer's own initialiser), recursively.
  virtual void reset_parameters(Generator& generator);

 protected:
  /// Registers a parameter under `name` and returns it.
  Var register_parameter(std::string name, Tensor value, bool requires_grad = true);
  template <typename M>
  /// Registers a submodule under `name` (its parameters become "name.*") and returns it.
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    children_.emplace_back(std::move(name), module);
    return module;
  }
  template <typename M>
  /// Registers a copy of `module` under `name` and returns the shared copy.
  std::shared_ptr<M> register_module(std::string name, M module) {
    return register_module(std::move(name), std::make_shared<M>(std::move(module)));
  }
  /// Registers state that is saved, loaded and moved like a parameter but never trained
  /// (BatchNorm's running statistics): requires_grad false, and set_trainable() leaves it so.
  Var register_buffer(std::string name, Tensor value);
  /// Replaces a registered parameter's value (initialisers use this).
  void set_parameter(const std::string& name, Tensor value);

 private:
  void collect(const std::string& prefix, std::vector<std::pair<std::string, Var>>& out) const;

  std::vector<std::pair<std::string, Var>> parameters_;
  std::vector<std::string> buffer_names_;  // the entries of parameters_ that are buffers
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

}  // namespace strand
