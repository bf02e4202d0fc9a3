// The backward pass itself: accumulation, shared subexpressions, no-grad mode, grad-ready
// hooks, and error messages.
#include <doctest/doctest.h>

#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "test_helpers.h"

namespace strand {

TEST_CASE("gradients accumulate across backward calls and through shared inputs") {
  Var x(Tensor::from_vector<double>({1, 2, 3}, {3}), true);
  // y = sum(x * x + x): dy/dx = 2x + 1, x used three times.
  Var y = sum(add(mul(x, x), x));
  y.backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{3, 5, 7});
  y.backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{6, 10, 14});
  x.zero_grad();
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("a deep chain runs without recursion") {
  Var x(Tensor::from_vector<double>({0.5}, {1}), true);
  Var h = x;
  for (int i = 0; i < 20000; ++i) h = affine(h, 1.0, 0.0);
  sum(h).backward();
  CHECK(x.grad().item() == 1.0);
}

TEST_CASE("no-grad mode records nothing") {
  Var x(Tensor::ones({2}, DType::kFloat64), true);
  {
    NoGradGuard guard;
    Var y = mul(x, x);
    CHECK_FALSE(y.requires_grad());
  }
  CHECK(grad_enabled());
  CHECK(mul(x, x).requires_grad());
}

TEST_CASE("grad-ready hooks fire once per leaf when its gradient is final") {
  Var a(Tensor::ones({2}, DType::kFloat64), true);
  Var b(Tensor::ones({2}, DType::kFloat64), true);
  std::vector<std::pair<std::string, std::vector<double>>> fired;
  a.add_grad_ready_hook([&](Var& leaf) {
    fired.push_back({"a", leaf.grad().to_vector<double>()});
  });
  b.add_grad_ready_hook([&](Var& leaf) {
    fired.push_back({"b", leaf.grad().to_vector<double>()});
  });
  // a feeds two paths; its hook must see the sum of both.
  Var loss = sum(add(mul(a, b), affine(a, 3.0, 0.0)));
  loss.backward();
  REQUIRE(fired.size() == 2);
  for (auto& [name, grad] : fired) {
    if (name == "a") CHECK(grad == std::vector<double>{4, 4});
    if (name == "b") CHECK(grad == std::vector<double>{1, 1});
  }
}

TEST_CASE("backward errors say what is wrong") {
  Var constant(Tensor::ones({2}));
  CHECK_THROWS_WITH_AS(constant.backward(), doctest::Contains("is not a single value"), Error);
  Var x(Tensor::ones({2}), true);
  CHECK_THROWS_WITH_AS(mul(x, x).backward(), doctest::Contains("is not a single value"), Error);
  CHECK_THROWS_WITH_AS(sum(constant).backward(), doctest::Contains("does not require grad"), Error);
  CHECK_THROWS_WITH_AS(Var(Tensor::ones({2}, DType::kUInt8), true),
                       doctest::Contains("only float tensors can require gradients"), Error);
}

TEST_CASE("gradients flow only to inputs that require them") {
  Var x(Tensor::ones({3}, DType::kFloat64), true);
  Var frozen(Tensor::ones({3}, DType::kFloat64), false);
  sum(mul(x, frozen)).backward();
  CHECK(x.grad().defined());
  CHECK_FALSE(frozen.grad().defined());
}

}  // namespace strand
