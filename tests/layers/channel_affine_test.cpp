// channel_affine: BatchNorm1D's evaluation map read off the layer equals weight / sqrt(var + eps)
// and bias - mean * scale from its running statistics; Dropout in evaluation is the identity.
#include <doctest/doctest.h>

#include <cmath>

#include "layers/batch_norm.h"
#include "layers/channel_affine.h"
#include "layers/dropout.h"

namespace strand {
namespace {

TEST_CASE("channel affine: BatchNorm1D in evaluation is its running statistics' map") {
  BatchNorm1D norm(3);
  const std::vector<float> weight = {1.5F, 0.5F, -1.0F}, bias = {0.1F, -0.2F, 0.3F};
  const std::vector<float> mean = {0.2F, -1.0F, 3.0F}, var = {0.5F, 2.0F, 0.25F};
  for (auto& [name, parameter] : norm.named_parameters()) {
    const std::vector<float>* values = name == "weight"         ? &weight
                                       : name == "bias"         ? &bias
                                       : name == "running_mean" ? &mean
                                       : name == "running_var"  ? &var
                                                                : nullptr;
    if (values == nullptr) continue;
    for (size_t c = 0; c < 3; ++c) parameter.mutable_value().data<float>()[c] = (*values)[c];
  }
  norm.eval();
  const ChannelAffine affine = channel_affine(norm, 3);
  for (size_t c = 0; c < 3; ++c) {
    CAPTURE(c);
    const double scale = weight[c] / std::sqrt(static_cast<double>(var[c]) + 1e-5);
    CHECK(affine.scale.data<float>()[c] == doctest::Approx(scale).epsilon(1e-6));
    CHECK(affine.shift.data<float>()[c] ==
          doctest::Approx(bias[c] - mean[c] * scale).epsilon(1e-6));
  }
}

TEST_CASE("channel affine: Dropout in evaluation is the identity") {
  Dropout dropout(0.5);
  dropout.eval();
  const ChannelAffine affine = channel_affine(dropout, 4);
  for (int64_t c = 0; c < 4; ++c) {
    CHECK(affine.scale.data<float>()[c] == 1.0F);
    CHECK(affine.shift.data<float>()[c] == 0.0F);
  }
}

}  // namespace
}  // namespace strand
