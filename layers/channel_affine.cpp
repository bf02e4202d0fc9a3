// The per-channel affine map of a layer, read off the layer (layers/channel_affine.h).
#include "layers/channel_affine.h"

#include "autograd/grad_mode.h"
#include "autograd/var.h"

namespace strand {

ChannelAffine channel_affine(Layer& layer, int64_t channels) {
  NoGradGuard no_grad;
  // probe: (1, C, 2), column 0 zeros and column 1 ones.
  Tensor probe = Tensor::zeros({1, channels, 2});
  for (int64_t c = 0; c < channels; ++c) probe.data<float>()[c * 2 + 1] = 1.0F;
  const Tensor y = layer.forward(Var(probe)).value().contiguous();
  ChannelAffine affine{Tensor::empty({channels}), Tensor::empty({channels})};
  for (int64_t c = 0; c < channels; ++c) {
    const float shift = y.data<float>()[c * 2];
    affine.shift.data<float>()[c] = shift;
    affine.scale.data<float>()[c] = y.data<float>()[c * 2 + 1] - shift;
  }
  return affine;
}

}  // namespace strand
