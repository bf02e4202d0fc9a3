// The fast, exact ISM path: each mutant is an alternate of its sequence that differs in one
// position, run through the alternates engine (alternates/alternate_forward.h, its windowed
// strategy), which carries only the columns of each layer that the substitution changes and
// reads every other column from the sequence's reference pass. Sequential and Graph models qualify
// (layer lists and graphs with residual adds and several outputs); a model of another class, or one
// reading inputs beyond the sequence, does not, and ism() runs the brute-force path for it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "alternates/alternate_forward.h"
#include "explain/ism.h"
#include "explain/target.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::explain {

/// The fast ISM path for one model, target and input length.
class FastIsmPlan {
 public:
  /// The plan for `model` on sequences of `length` bases, or nullptr with the reason in `why`.
  static std::unique_ptr<FastIsmPlan> make(Model& model, int64_t length, const Target& target,
                                           std::string* why);
  ~FastIsmPlan();
  FastIsmPlan(const FastIsmPlan&) = delete;
  FastIsmPlan& operator=(const FastIsmPlan&) = delete;

  /// ISM of `codes` ((N, L) uint8, L the plan's length) as ism() defines it.
  IsmResult run(Model& model, const Tensor& codes, const IsmOptions& options) const;

  /// The number of steps whose output is a window of columns (for tests: 0 means no saving).
  int64_t windowed_steps() const;

  /// The number of outputs read through alternates/relu_readout.h (for tests).
  int64_t readouts() const;

 private:
  FastIsmPlan();
  std::unique_ptr<alternates::AlternateForward> forward_;
  Activation activation_ = Activation::kIdentity;
  Target target_;
  int64_t length_ = 0;
};

}  // namespace strand::explain
