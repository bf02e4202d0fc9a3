// The fused runs of layers and how they run.
#include "layers/fusion.h"

#include "layers/activations.h"
#include "layers/conv1d.h"
#include "ops/conv1d.h"

namespace strand {

size_t fused_run_length(std::span<Layer* const> run) {
  if (run.size() >= 3 && dynamic_cast<Conv1D*>(run[0]) != nullptr &&
      dynamic_cast<ReLU*>(run[1]) != nullptr && dynamic_cast<GlobalMaxPool1D*>(run[2]) != nullptr) {
    return 3;
  }
  return 1;
}

Var forward_fused_run(std::span<Layer* const> run, size_t length, const Var& x) {
  if (length == 3) {
    const auto& conv = dynamic_cast<const Conv1D&>(*run[0]);
    return conv1d_relu_max(x, conv.weight(), conv.bias(), conv.params_for_length(x.shape().back()));
  }
  STRAND_CHECK(length == 1, "forward_fused_run: no fused run of length {}", length);
  return run[0]->forward(x);
}

}  // namespace strand
