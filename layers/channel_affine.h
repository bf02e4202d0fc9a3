// The per-channel affine map of a layer that is one in evaluation mode (BatchNorm1D: y = a x + c
// with the running statistics folded in; Dropout: the identity), read off the layer itself at
// x = 0 and x = 1, so that it is exactly what the layer computes. Incremental forward passes
// fold it into a convolution or scale a change by it.
#pragma once

#include <cstdint>

#include "layers/layer.h"
#include "tensor/tensor.h"

namespace strand {

/// The evaluation-mode map y = scale * x + shift of `layer` on (B, channels, L) inputs.
struct ChannelAffine {
  Tensor scale;  ///< (channels) float32
  Tensor shift;  ///< (channels) float32
};

/// Runs `layer` (in the mode it is in: evaluation, for these layers to be affine) on one input
/// of zeros and ones per channel. The caller knows the layer to be affine per channel.
ChannelAffine channel_affine(Layer& layer, int64_t channels);

}  // namespace strand
