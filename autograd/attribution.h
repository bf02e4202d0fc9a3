// The attribution pass: DeepLIFT's second backward rule, beside each op's gradient.
//
// DeepLIFT (Shrikumar et al. 2017; shap's DeepExplainer and tangermeme's deep_lift_shap) explains
// f(x) - f(r) for an input x and a reference r by back-propagating multipliers instead of
// gradients: linear ops keep their gradient, an elementwise nonlinearity uses the secant
// (y - y_r) / (x - x_r) (the rescale rule), and max pooling routes the change of its output
// through the chosen elements of both passes. An op's rule needs the values the same op saw on
// the reference, so an attribution runs two forward passes with grad mode on, in one thread:
//
//   AttributionPass pass;          // phase kReferences: nonlinear ops save() their values
//   forward(references);
//   pass.begin_inputs();           // phase kInputs: the same ops take() them, in the same order,
//   Var f = forward(inputs);       //   and record their DeepLIFT rule instead of the gradient
//   f.backward(...);               // inputs' gradients are now the multipliers
//   pass.finish();                 // every saved entry was taken
//
// Only ops run with grad mode on take part (a tensor-level helper running Vars under NoGradGuard
// does not). The ops' rules live in ops/ beside their gradients; this file holds the pass's
// bookkeeping only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace strand {

/// Which forward pass of an attribution is running.
enum class AttributionPhase {
  kReferences,  ///< nonlinear ops save their input and output
  kInputs,      ///< nonlinear ops take the reference's values and record their DeepLIFT rule
};

/// The active DeepLIFT pass of this thread while it lives (see the file comment). Not
/// copyable; one per thread at a time.
class AttributionPass {
 public:
  /// Installs the pass for this thread, in the references' phase. Throws when one is active.
  AttributionPass();
  /// Uninstalls the pass.
  ~AttributionPass();
  AttributionPass(const AttributionPass&) = delete;
  AttributionPass& operator=(const AttributionPass&) = delete;

  /// The current phase.
  AttributionPhase phase() const { return phase_; }
  /// Switches to the inputs' phase: the entries saved so far are taken in the order saved.
  void begin_inputs();
  /// Throws unless every entry saved in the references' phase was taken.
  void finish() const;

  /// References' phase: saves the values op `op_name` needs for its rule.
  void save(const char* op_name, std::vector<Tensor> values);
  /// Inputs' phase: the values the same op saved in the references' pass. Throws naming both
  /// ops when the two passes did not run the same ops in the same order (a model whose forward
  /// pass depends on its input's values).
  std::vector<Tensor> take(const char* op_name);

 private:
  struct Entry {
    std::string op_name;
    std::vector<Tensor> values;
  };
  AttributionPhase phase_ = AttributionPhase::kReferences;
  std::vector<Entry> entries_;
  size_t next_ = 0;  // the entry take() returns next
};

/// The pass an op takes part in: this thread's active AttributionPass when grad mode is on,
/// else nullptr (the usual case, one thread-local read).
AttributionPass* attribution_pass();

}  // namespace strand
