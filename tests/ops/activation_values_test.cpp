// Softplus and GELU against PyTorch 2.15's float64 values for the same inputs
// (torch.nn.functional.softplus and gelu, printed), tails included; their gradients are rows of
// the op table.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "ops/elementwise.h"

namespace strand {

TEST_CASE("softplus and gelu match PyTorch in float64, tails included") {
  const Tensor x = Tensor::from_vector(std::vector<double>{-30, -2, -0.5, 0, 0.5, 2, 30}, {7});
  const std::vector<double> softplus_torch = {9.357622968839737e-14,
                                              0.1269280110429725,
                                              0.4740769841801067,
                                              0.6931471805599453,
                                              0.9740769841801067,
                                              2.1269280110429727,
                                              30.0};
  const std::vector<double> gelu_torch = {-0.0, -0.04550026389635842, -0.15426876936299344,
                                          0.0,  0.34573123063700656,  1.9544997361036416,
                                          30.0};
  const std::vector<double> softplus = ops::softplus(x).to_vector<double>();
  const std::vector<double> gelu = ops::gelu(x).to_vector<double>();
  for (size_t i = 0; i < softplus_torch.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(softplus[i] - softplus_torch[i]) <= 1e-12 * std::max(1.0, softplus_torch[i]));
    CHECK(std::abs(gelu[i] - gelu_torch[i]) <= 1e-12 * std::max(1.0, std::abs(gelu_torch[i])));
  }
}

}  // namespace strand
