// Layer fusion: pattern matching over a chain of layers (see layers/layer_fusion.h).
#include "layers/layer_fusion.h"

#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"

namespace strand {
namespace {

template <typename L>
L* layer_as(std::span<const std::shared_ptr<Layer>> chain, size_t i) {
  return i < chain.size() ? dynamic_cast<L*>(chain[i].get()) : nullptr;
}

}  // namespace

FusedRun run_fused(std::span<const std::shared_ptr<Layer>> chain, const Var& x) {
  if (auto* conv = layer_as<Conv1D>(chain, 0)) {
    const Conv1DParams params = conv->params_for_length(x.shape().back());
    if (layer_as<ReLU>(chain, 1) && layer_as<GlobalMaxPool1D>(chain, 2)) {
      return {conv1d_relu_max(x, conv->weight(), conv->bias(), params), 3};
    }
    if (layer_as<ReLU>(chain, 1)) return {conv1d_relu(x, conv->weight(), conv->bias(), params), 2};
  }
  if (auto* norm = layer_as<BatchNorm1D>(chain, 0)) {
    if (layer_as<ReLU>(chain, 1)) return {norm->forward_relu(x), 2};
  }
  return {};
}

}  // namespace strand
