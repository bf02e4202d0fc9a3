// The attribution pass: DeepLIFT's second backward rule, beside each op's gradient.
//
// DeepLIFT (Shrikumar et al. 2017; shap's DeepExplainer and tangermeme's deep_lift_shap) explains
// f(x) - f(r) for an input x and a reference r by back-propagating multipliers instead of
// gradients: linear ops keep their gradient, an elementwise nonlinearity uses the secant
// (y - y_r) / (x - x_r) (the rescale rule), and max pooling routes the change of its output
// through the chosen elements of both. An op's rule needs the values the same op saw on the
// input beside the reference's, so an attribution runs two forward passes with grad mode on, in
// one thread:
//
//   AttributionPass pass;          // phase kInputs: nonlinear ops save() their values
//   forward(inputs);               //   (each distinct input once)
//   pass.begin_references(rows);   // phase kReferences: the same ops take() them, in the same
//   Var f = forward(references);   //   order, and record their DeepLIFT rule instead of the
//   f.backward(...);               //   gradient; the references' gradients are the multipliers
//   pass.finish();                 // every saved entry was taken
//
// Row i of the references' batch is paired with row rows[i] of the inputs' batch, so each input
// runs once however many references it has (tangermeme repeats it in its batch once per
// reference). The rules are symmetric in the pair, with the input's derivative where the two
// nearly coincide, so the multipliers are the ones a pass over the inputs would give. Only ops
// run with grad mode on take part (a tensor-level helper running Vars under NoGradGuard does
// not). The ops' rules live in ops/ beside their gradients; this file holds the bookkeeping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace strand {

/// Which forward pass of an attribution is running.
enum class AttributionPhase {
  kInputs,      ///< nonlinear ops save their values
  kReferences,  ///< nonlinear ops take the inputs' values and record their DeepLIFT rule
};

/// The active DeepLIFT pass of this thread while it lives (see the file comment). Not
/// copyable; one per thread at a time.
class AttributionPass {
 public:
  /// Installs the pass for this thread, in the inputs' phase. Throws when one is active.
  AttributionPass();
  /// Uninstalls the pass.
  ~AttributionPass();
  AttributionPass(const AttributionPass&) = delete;
  AttributionPass& operator=(const AttributionPass&) = delete;

  /// The current phase.
  AttributionPhase phase() const { return phase_; }
  /// Switches to the references' phase: row i of its batch pairs with row `input_rows[i]` of the
  /// inputs' batch (non-decreasing), and the entries saved so far are taken in the order saved.
  void begin_references(std::vector<int64_t> input_rows);
  /// Throws unless every entry saved in the inputs' phase was taken.
  void finish() const;

  /// Inputs' phase: saves the values op `op_name` needs for its rule.
  void save(const char* op_name, std::vector<Tensor> values);
  /// References' phase: the values the same op saved in the inputs' pass, each row repeated for
  /// the references it pairs with (rows of the references' batch; batch dimension first). Throws
  /// naming both ops when the two passes did not run the same ops in the same order (a model
  /// whose forward pass depends on its input's values).
  std::vector<Tensor> take(const char* op_name);

 private:
  struct Entry {
    std::string op_name;
    std::vector<Tensor> values;
  };
  Tensor paired(const Tensor& saved) const;

  AttributionPhase phase_ = AttributionPhase::kInputs;
  std::vector<Entry> entries_;
  size_t next_ = 0;                                    // the entry take() returns next
  std::vector<std::pair<int64_t, int64_t>> row_runs_;  // (input row, references) per run
  int64_t reference_rows_ = 0;
};

/// The pass an op takes part in: this thread's active AttributionPass when grad mode is on,
/// else nullptr (the usual case, one thread-local read).
AttributionPass* attribution_pass();

}  // namespace strand
