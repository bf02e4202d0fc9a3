// The default batch of a forward pass on a device (train/inference_batch.h).
#include "train/inference_batch.h"

#include <algorithm>

#include "tensor/cuda_runtime.h"

namespace strand::train {

// Activations alive at once, by the estimate: a layer's input and output, a residual branch's
// input, and the allocator's rounding and the pass's temporaries.
constexpr int64_t kAliveActivations = 6;

int64_t forward_bytes_per_example(const Module& model, int64_t length) {
  int64_t widest = 4;
  for (const Var& parameter : model.parameters()) {
    if (parameter.dim() == 3) {  // a Conv1D's weight (O, C, K)
      widest = std::max({widest, parameter.shape()[0], parameter.shape()[1]});
    }
  }
  return kAliveActivations * widest * std::max<int64_t>(length, 1) * 4;
}

int64_t inference_batch_size(const Module& model, int64_t length, Device device,
                             int64_t cpu_default, int64_t most) {
  if (!device.is_cuda()) return cpu_default;
  const DeviceMemory memory = cuda_runtime().memory(device);
  const int64_t fits = static_cast<int64_t>(memory.free_bytes / 2) /
                       std::max<int64_t>(forward_bytes_per_example(model, length), 1);
  return std::clamp(fits, cpu_default, std::max(cpu_default, most));
}

}  // namespace strand::train
