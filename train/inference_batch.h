// How many examples one forward pass should carry (evaluation, no gradients) when the caller
// does not say: the CPU's default batch, or, on a GPU, enough to fill it. A GPU runs a pass of a
// few hundred 2 kb sequences in well under a millisecond per kernel, so small batches leave it
// waiting on launches and on the host between passes (GPU brute-force ISM at 256 mutants a pass
// ran at 0.45x PyTorch's at 512).
#pragma once

#include <cstdint>

#include "core/device.h"
#include "layers/model.h"

namespace strand::train {

/// The activation bytes one example of `length` bases takes in a forward pass of `model`, by an
/// estimate: its widest convolution's channels (at least the input's 4) x length x 4 bytes, for
/// the few activations alive at once (a layer's input and output, a residual branch).
int64_t forward_bytes_per_example(const Module& model, int64_t length);

/// `cpu_default` on the CPU; on a GPU, as many examples as half the device's free memory holds
/// by forward_bytes_per_example(), between `cpu_default` and `most`.
int64_t inference_batch_size(const Module& model, int64_t length, Device device,
                             int64_t cpu_default, int64_t most);

}  // namespace strand::train
