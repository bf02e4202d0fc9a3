// Optimizer: updates a list of parameters (not a Module, so it works for any set of Vars)
// from their gradients. Parameters without a gradient, or frozen (requires_grad false), are
// skipped. State is exposed as named tensors so checkpoints save and restore it exactly.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "autograd/var.h"

namespace strand {

/// Optimizer state: "step" (a one-element int64 tensor) and per-parameter buffers named
/// "<parameter index>.<buffer>", e.g. "0.exp_avg".
using OptimizerState = std::map<std::string, Tensor>;

/// How zero_grad() resets gradients.
enum class GradReset { kDrop, kZeroInPlace };

/// The base of the optimizers: updates a list of parameters from their gradients.
class Optimizer {
 public:
  /// Takes the parameters to update (not a Module).
  explicit Optimizer(std::vector<Var> parameters, double learning_rate);
  virtual ~Optimizer() = default;

  /// Applies one update from the current gradients. On a CUDA device the learning rate and
  /// the step count the updates use live in a device schedule (see schedule_for) that step()
  /// advances on the device: a step captured into a CUDA graph replays as the next step, with
  /// the learning rate in force at the replay.
  void step();
  /// Resets every parameter's gradient: kDrop releases it (a parameter that the next backward
  /// pass does not reach is then skipped by step(), as in PyTorch's set_to_none); kZeroInPlace
  /// zeroes it in place, which a step captured into a CUDA graph needs (nothing freed).
  void zero_grad(GradReset how = GradReset::kDrop);

  /// The current learning rate.
  double learning_rate() const { return learning_rate_; }
  /// Changes the learning rate (schedules, callbacks); takes effect at the next step, also
  /// for a step replayed from a CUDA graph (the device schedule is written on the stream).
  void set_learning_rate(double learning_rate);
  /// Steps taken so far (1-based during an update).
  int64_t step_count() const { return step_count_; }
  /// Counts a step that ran without step(): one replay of a CUDA graph that captured step().
  /// The device-side state (Adam's schedule) has advanced inside the graph already.
  void count_replayed_step() { ++step_count_; }
  /// The parameters, in the order given.
  const std::vector<Var>& parameters() const { return parameters_; }
  /// "Adam", "SGD", ...
  virtual std::string name() const = 0;

  /// A deep copy of the state (host tensors).
  OptimizerState state() const;
  /// Restores a state() result; throws naming the buffer whose shape or presence differs.
  void load_state(const OptimizerState& state);

 protected:
  /// Updates parameter `index` (which has a gradient) for step number step_count().
  virtual void update(size_t index, Var& parameter) = 0;
  /// Updates every parameter in `active` (those with a gradient); the default calls update()
  /// for each. Optimizers with a multi-tensor path override it.
  virtual void update_all(const std::vector<size_t>& active);
  /// The schedule the update of `parameter` reads its learning rate and 1-based step from:
  /// during step() on a CUDA device, a float64 [learning rate, step] on that device (made from
  /// the host values on first use and after load_state(), advanced by step(), written by
  /// set_learning_rate()); undefined on the CPU, and for a parameter on another device than
  /// the step's first, where updates take learning_rate() and step_count() from the host.
  const Tensor& schedule_for(const Var& parameter) const;
  /// The buffer `name` of parameter `index`, created zero-filled like the parameter.
  Tensor& buffer(size_t index, const std::string& name);
  /// Whether parameter `index` has the buffer `name` yet.
  bool has_buffer(size_t index, const std::string& name) const;

 private:
  std::vector<Var> parameters_;
  double learning_rate_;
  int64_t step_count_ = 0;
  OptimizerState buffers_;
  Tensor schedule_;  // the device schedule (see schedule_for); undefined on the CPU
  Tensor no_schedule_;
};

}  // namespace strand
