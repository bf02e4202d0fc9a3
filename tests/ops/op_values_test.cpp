// Values of the tensor ops: broadcasting, reductions, max with argmax, matmul against its
// oracle.
#include <doctest/doctest.h>

#include <cmath>

#include "kernels/cpu/matmul.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"
#include "ops/reduction.h"
#include "test_helpers.h"

namespace strand {

using testing::max_abs_difference;
using testing::random_tensor;

TEST_CASE("binary ops broadcast like NumPy") {
  const Tensor a = Tensor::from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor row = Tensor::from_vector<double>({10, 20, 30}, {3});
  const Tensor column = Tensor::from_vector<double>({100, 200}, {2, 1});
  CHECK(ops::add(a, row).to_vector<double>() == std::vector<double>{11, 22, 33, 14, 25, 36});
  CHECK(ops::sub(column, a).to_vector<double>() == std::vector<double>{99, 98, 97, 196, 195, 194});
  CHECK(ops::mul(row, column).shape() == Shape{2, 3});
  CHECK(ops::div(a, row).to_vector<double>()[5] == doctest::Approx(0.2));
  // Non-contiguous operands.
  CHECK(ops::add(a.transpose(0, 1), a.transpose(0, 1)).to_vector<double>() ==
        std::vector<double>{2, 8, 4, 10, 6, 12});
}

TEST_CASE("maximum and greater broadcast, and NaN propagates through maximum") {
  const Tensor a = Tensor::from_vector<double>({-1, 0.5, 2, NAN}, {4});
  const Tensor zero = Tensor::full({}, 0.0, DType::kFloat64);
  CHECK(ops::greater(a, zero).to_vector<double>() == std::vector<double>{0, 1, 1, 0});
  const std::vector<double> clipped = ops::maximum(a, zero).to_vector<double>();
  CHECK(clipped[0] == 0.0);
  CHECK(clipped[1] == 0.5);
  CHECK(clipped[2] == 2.0);
  CHECK(std::isnan(clipped[3]));
  CHECK(std::isnan(ops::maximum(zero, a).to_vector<double>()[3]));
}

TEST_CASE("unary ops") {
  const Tensor x = Tensor::from_vector<double>({-2, 0, 3}, {3});
  CHECK(ops::relu(x).to_vector<double>() == std::vector<double>{0, 0, 3});
  CHECK(ops::sigmoid(x).to_vector<double>()[1] == 0.5);
  CHECK(ops::sigmoid(Tensor::from_vector<double>({-800, 800}, {2})).to_vector<double>() ==
        std::vector<double>{0, 1});
  CHECK(ops::exp(x).to_vector<double>()[2] == doctest::Approx(std::exp(3.0)));
  CHECK(ops::square(x).to_vector<double>() == std::vector<double>{4, 0, 9});
  CHECK(ops::affine(x, 2, 1).to_vector<double>() == std::vector<double>{-3, 1, 7});
}

TEST_CASE("sum and mean over dimensions") {
  const Tensor x = Tensor::from_vector<double>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 3, 2});
  CHECK(ops::sum(x).item() == 78);
  CHECK(ops::sum(x, {1}).to_vector<double>() == std::vector<double>{9, 12, 27, 30});
  CHECK(ops::sum(x, {0, 2}, true).shape() == Shape{1, 3, 1});
  CHECK(ops::sum(x, {0, 2}).to_vector<double>() == std::vector<double>{18, 26, 34});
  CHECK(ops::mean(x, {-1}).to_vector<double>() ==
        std::vector<double>{1.5, 3.5, 5.5, 7.5, 9.5, 11.5});
  CHECK(ops::sum(x.transpose(0, 2), {2}).to_vector<double>() ==
        std::vector<double>{1 + 7, 3 + 9, 5 + 11, 2 + 8, 4 + 10, 6 + 12});
  // float32 sums accumulate in double: 1e7 ones stay exact.
  CHECK(ops::sum(Tensor::ones({10000000})).item() == 1e7);
}

TEST_CASE("max returns the first argmax") {
  const Tensor x = Tensor::from_vector<double>({1, 5, 5, 2, 9, 0}, {2, 3});
  auto [values, indices] = ops::max(x, 1);
  CHECK(values.to_vector<double>() == std::vector<double>{5, 9});
  CHECK(indices.to_vector<int64_t>() == std::vector<int64_t>{1, 1});
  auto [column_max, column_arg] = ops::max(x, 0, true);
  CHECK(column_max.shape() == Shape{1, 3});
  CHECK(column_arg.to_vector<int64_t>() == std::vector<int64_t>{1, 1, 0});
  const Tensor grad = ops::max_backward(Tensor::ones({2}, DType::kFloat64), indices, 1, x.shape());
  CHECK(grad.to_vector<double>() == std::vector<double>{0, 1, 0, 0, 1, 0});
}

TEST_CASE("matmul fast kernel matches the oracle, with transposed operands") {
  for (auto [m, k, n] : {std::tuple{1, 1, 1}, {3, 5, 2}, {17, 33, 9}, {64, 300, 31}}) {
    const Tensor a = random_tensor({m, k}, 1);
    const Tensor bt = random_tensor({n, k}, 2);
    const Tensor b = bt.transpose(0, 1);
    const Tensor fast = ops::matmul(a, b);
    Tensor expected = Tensor::empty({m, n}, DType::kFloat64);
    kernels::cpu::matmul_reference<double>(m, n, k, a.data<double>(), k, 1, bt.data<double>(), 1, k,
                                           expected.data<double>());
    CHECK(max_abs_difference(fast, expected) < 1e-12);
  }
}

TEST_CASE("sum_to_shape undoes broadcasting") {
  const Tensor g = Tensor::ones({4, 2, 3}, DType::kFloat64);
  CHECK(ops::sum_to_shape(g, {3}).to_vector<double>() == std::vector<double>{8, 8, 8});
  CHECK(ops::sum_to_shape(g, {2, 1}).to_vector<double>() == std::vector<double>{12, 12});
}

// DeepLIFT's multipliers: the one-pass CPU kernels against their composition from element-wise
// ops (the oracle, and what other devices run), with some inputs equal to their references so
// that the derivative branch (|dx| < 1e-6) and the unchanged branch are taken.
TEST_CASE("rescale and divide_where_changed kernels match their composed oracles") {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    INFO("dtype " << dtype_name(dtype));
    const Tensor x = random_tensor({3, 17}, 5, dtype);
    Tensor x_ref = random_tensor({3, 17}, 6, dtype);
    // Every fourth reference equals its input: dx = 0.
    for (int64_t i = 0; i < x.numel(); i += 4) {
      if (dtype == DType::kFloat32) {
        x_ref.data<float>()[i] = x.data<float>()[i];
      } else {
        x_ref.data<double>()[i] = x.data<double>()[i];
      }
    }
    const double tolerance = dtype == DType::kFloat32 ? 1e-4 : 1e-10;
    for (UnaryOpKind kind : {UnaryOpKind::kRelu, UnaryOpKind::kSigmoid, UnaryOpKind::kTanh,
                             UnaryOpKind::kSoftplus, UnaryOpKind::kExp, UnaryOpKind::kGelu}) {
      INFO("kind " << static_cast<int>(kind));
      const Tensor y = ops::unary(kind, x), y_ref = ops::unary(kind, x_ref);
      CHECK(max_abs_difference(ops::rescale_multiplier(kind, x, x_ref, y, y_ref),
                               ops::rescale_multiplier_composed(kind, x, x_ref, y, y_ref)) <
            tolerance);
    }
    const Tensor dx = ops::sub(x, x_ref);
    const Tensor routed = random_tensor({3, 17}, 7, dtype);
    const Tensor fallback = random_tensor({3, 17}, 8, dtype);
    CHECK(max_abs_difference(ops::divide_where_changed(routed, dx, fallback),
                             ops::divide_where_changed_composed(routed, dx, fallback)) < tolerance);
  }
}

}  // namespace strand
