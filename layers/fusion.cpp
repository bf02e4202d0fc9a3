// The fused runs of layers and how they run (see layers/fusion.h).
#include "layers/fusion.h"

#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/pooling.h"
#include "ops/conv1d.h"

namespace strand {
namespace {

template <typename L>
L* layer_as(std::span<Layer* const> run, size_t i) {
  return i < run.size() ? dynamic_cast<L*>(run[i]) : nullptr;
}

}  // namespace

size_t fused_run_length(std::span<Layer* const> run) {
  if (layer_as<Conv1D>(run, 0) != nullptr && layer_as<ReLU>(run, 1) != nullptr) {
    return layer_as<GlobalMaxPool1D>(run, 2) != nullptr ? 3 : 2;
  }
  if (layer_as<BatchNorm1D>(run, 0) != nullptr && layer_as<ReLU>(run, 1) != nullptr) {
    return layer_as<MaxPool1D>(run, 2) != nullptr ? 3 : 2;
  }
  return 1;
}

Var forward_fused_run(std::span<Layer* const> run, size_t length, const Var& x) {
  STRAND_CHECK(length == 1 || length == fused_run_length(run),
               "forward_fused_run: no fused run of length {} here", length);
  if (length == 1) return run[0]->forward(x);
  if (auto* conv = layer_as<Conv1D>(run, 0)) {
    const Conv1DParams params = conv->params_for_length(x.shape().back());
    return length == 3 ? conv1d_relu_max(x, conv->weight(), conv->bias(), params)
                       : conv1d_relu(x, conv->weight(), conv->bias(), params);
  }
  auto* norm = layer_as<BatchNorm1D>(run, 0);
  if (length == 2) return norm->forward_relu(x);
  const Pool1DParams& pool = layer_as<MaxPool1D>(run, 2)->params();
  // (B, C, L) on a GPU: the fused op. The CPU runs the chain it equals, as before (its fused
  // kernel is that very composition), and a (B, C) input has nothing to pool.
  if (x.device().is_cuda() && x.dim() == 3) return norm->forward_relu_max_pool(x, pool);
  return run[2]->forward(norm->forward_relu(x));
}

}  // namespace strand
