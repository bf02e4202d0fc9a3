// Pooling layers: shapes, values against PyTorch (torch.nn.functional.max_pool1d and avg_pool1d,
// PyTorch 2.15, printed for these inputs), the ceil_mode rule, and clear errors. Gradients are
// rows of the op table (tests/ops/op_table_test.cpp).
#include <doctest/doctest.h>

#include <vector>

#include "layers/pooling.h"
#include "layers/sequential.h"

namespace strand {
namespace {

std::vector<double> run(Layer& layer, const std::vector<double>& values) {
  const Tensor x = Tensor::from_vector(values, {1, 1, static_cast<int64_t>(values.size())});
  return layer.forward(Var(x)).value().contiguous().to_vector<double>();
}

}  // namespace

TEST_CASE("pooling layers match PyTorch's values, ceil_mode included") {
  const std::vector<double> x = {1, 5, 2, 4, 3, 6};
  MaxPool1D max_ceil(3, 2, true);
  CHECK(run(max_ceil, x) == std::vector<double>{5, 4, 6});
  AvgPool1D avg_ceil(3, 2, true);
  const std::vector<double> avg = run(avg_ceil, x);
  REQUIRE(avg.size() == 3);
  CHECK(avg[0] == doctest::Approx(8.0 / 3.0));
  CHECK(avg[1] == doctest::Approx(3.0));
  CHECK(avg[2] == doctest::Approx(4.5));  // the last window holds two values: their mean
  // A last window that would start past the input is dropped, as in PyTorch.
  MaxPool1D sparse(1, 3, true);
  CHECK(run(sparse, {1, 5, 2, 4, 3}) == std::vector<double>{1, 4});
  AvgPool1D pairs(2);  // stride defaults to the window
  CHECK(run(pairs, {1, 5, 2, 4, 3}) == std::vector<double>{3, 3});
  GlobalAvgPool1D global;
  CHECK(run(global, x) == std::vector<double>{3.5});
}

TEST_CASE("pooling layers report shapes and refuse what they cannot pool") {
  CHECK(MaxPool1D(3).output_shape({16, 600}) == Shape{16, 200});
  CHECK(MaxPool1D(4, 4, true).output_shape({8, 10}) == Shape{8, 3});
  CHECK(AvgPool1D(4, 2).output_shape({8, 10}) == Shape{8, 4});
  CHECK(GlobalAvgPool1D().output_shape({8, 10}) == Shape{8});
  CHECK_THROWS_WITH_AS(MaxPool1D(5).output_shape({4, 3}),
                       doctest::Contains("input length 3 is shorter than pool_size 5"), Error);
  CHECK_THROWS_WITH_AS(AvgPool1D(2).output_shape({12}), doctest::Contains("expected input (C, L)"),
                       Error);
  CHECK_THROWS_WITH_AS(MaxPool1D(0), doctest::Contains("pool_size must be >= 1"), Error);
  // A Basset-like stack chains its shapes through the pools.
  Sequential model;
  model.add(MaxPool1D(3));
  model.add(MaxPool1D(4));
  model.add(GlobalAvgPool1D());
  CHECK(model.output_shape({300, 600}) == Shape{300});
}

}  // namespace strand
