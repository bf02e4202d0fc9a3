// Gradient clipping by global norm, the max-norm constraint and the learning-rate schedules.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "optim/clipping.h"
#include "optim/lr_schedule.h"

namespace strand {
namespace {

Var with_gradient(std::vector<double> value, std::vector<double> grad) {
  const int64_t n = static_cast<int64_t>(value.size());
  Var p(Tensor::from_vector(value, {n}), true);
  p.set_grad(Tensor::from_vector(grad, {n}));
  return p;
}

}  // namespace

TEST_CASE("clip_grad_norm scales all gradients together, only when over the limit") {
  Var a = with_gradient({1, 1}, {3, 4});
  Var b = with_gradient({1, 1, 1}, {0, 0, 12});
  Var untouched(Tensor::from_vector(std::vector<double>{5}, {1}), true);  // no gradient
  // Total norm sqrt(9 + 16 + 144) = 13; a limit of 6.5 halves every gradient.
  CHECK(clip_grad_norm({a, b, untouched}, 6.5).item() == doctest::Approx(13.0));
  CHECK(a.grad().to_vector<double>() == std::vector<double>{1.5, 2.0});
  CHECK(b.grad().to_vector<double>() == std::vector<double>{0, 0, 6});
  CHECK_FALSE(untouched.grad().defined());
  // Within the limit nothing changes.
  CHECK(clip_grad_norm({a, b}, 100.0).item() == doctest::Approx(6.5));
  CHECK(a.grad().to_vector<double>() == std::vector<double>{1.5, 2.0});
  CHECK_THROWS_WITH_AS(clip_grad_norm({a}, 0.0), doctest::Contains("max_norm must be positive"),
                       Error);
}

TEST_CASE("apply_max_norm renormalises only the output units over the limit") {
  Var w(Tensor::from_vector(std::vector<double>{3, 4, 0.3, 0.4}, {2, 2}), true);
  apply_max_norm(w, 1.0);
  const std::vector<double> got = w.value().to_vector<double>();
  CHECK(got[0] == doctest::Approx(0.6));
  CHECK(got[1] == doctest::Approx(0.8));
  CHECK(got[2] == 0.3);  // norm 0.5: within the limit, untouched
  CHECK(got[3] == 0.4);
}

TEST_CASE("step decay and cosine with warm-up give the documented rates") {
  const StepDecay step(0.1, 10, 0.5);
  CHECK(step.rate(0) == doctest::Approx(0.1));
  CHECK(step.rate(9) == doctest::Approx(0.1));
  CHECK(step.rate(10) == doctest::Approx(0.05));
  CHECK(step.rate(25) == doctest::Approx(0.025));
  const CosineWithWarmup cosine(1.0, 10, 110, 0.1);
  CHECK(cosine.rate(0) == doctest::Approx(0.1));
  CHECK(cosine.rate(9) == doctest::Approx(1.0));
  CHECK(cosine.rate(10) == doctest::Approx(1.0));
  CHECK(cosine.rate(60) == doctest::Approx(0.55));
  CHECK(cosine.rate(110) == doctest::Approx(0.1));
  CHECK(cosine.rate(1000) == doctest::Approx(0.1));
  CHECK_THROWS_WITH_AS(CosineWithWarmup(1.0, 10, 10), doctest::Contains("warmup_steps < total"),
                       Error);
  CHECK_THROWS_WITH_AS(StepDecay(0.1, 0, 0.5), doctest::Contains("step_size >= 1"), Error);
}

}  // namespace strand
