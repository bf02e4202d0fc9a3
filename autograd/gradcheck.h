// Finite-difference gradient checking in float64: compares the gradients backward() computes
// with central differences, element by element, for any function of several Vars.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autograd/var.h"

namespace strand {

/// Step size and tolerances of gradcheck().
struct GradcheckOptions {
  double eps = 1e-6;   ///< central-difference step
  double atol = 1e-5;  ///< absolute tolerance
  double rtol = 1e-3;  ///< relative tolerance
  uint64_t seed = 0;   ///< for the random projection of non-scalar outputs
};

/// The outcome of gradcheck().
struct GradcheckResult {
  bool ok = true;              ///< every element within tolerance
  double max_abs_error = 0.0;  ///< largest |analytic - numeric|
  /// The first mismatch: input index, element index, analytic vs numeric value.
  std::string message;
};

/// Checks `fn` at `inputs`. Inputs that require grad must be float64 (they may be
/// non-contiguous views). A non-scalar output is reduced as sum(output * R) with a fixed
/// random R, so every output direction is exercised.
GradcheckResult gradcheck(const std::function<Var(const std::vector<Var>&)>& fn,
                          const std::vector<Var>& inputs, const GradcheckOptions& options = {});

}  // namespace strand
