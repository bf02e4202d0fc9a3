// first_non_finite: the check that refuses NaN and infinities in float inputs (issue 38: a NaN
// in a one-hot array gave NaN predictions without a word).
#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "core/finite_values.h"

namespace strand {
namespace {

TEST_CASE("first_non_finite finds the first NaN or infinity, and nothing in finite values") {
  std::vector<float> values(1000, 0.25F);
  values[3] = std::numeric_limits<float>::max();
  values[4] = -0.0F;
  CHECK_FALSE(first_non_finite(values.data(), values.size()).has_value());
  CHECK_FALSE(first_non_finite(values.data(), 0).has_value());
  values[700] = std::numeric_limits<float>::quiet_NaN();
  values[900] = std::numeric_limits<float>::infinity();
  CHECK(first_non_finite(values.data(), values.size()) == 700);
  values[10] = -std::numeric_limits<float>::infinity();
  CHECK(first_non_finite(values.data(), values.size()) == 10);
  CHECK_FALSE(first_non_finite(values.data(), 10).has_value());
}

}  // namespace
}  // namespace strand
