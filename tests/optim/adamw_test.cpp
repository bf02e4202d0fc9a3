// AdamW against torch.optim.AdamW (PyTorch 2.15, float64): three steps on
// sum((p - [1, 2, 3])^2) * step with lr 0.1, weight_decay 0.05, eps 1e-8 end at the values
// printed there; and decoupled decay differs from Adam's L2 penalty.
#include <doctest/doctest.h>

#include <vector>

#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "optim/adam.h"

namespace strand {
namespace {

std::vector<double> three_steps(Optimizer& optimizer, Var& p) {
  const Var target(Tensor::from_vector(std::vector<double>{1, 2, 3}, {3}));
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    const Var loss = sum(square(sub(p, target))) * static_cast<double>(step + 1);
    loss.backward();
    optimizer.step();
  }
  return p.value().to_vector<double>();
}

}  // namespace

TEST_CASE("AdamW matches torch.optim.AdamW and is not Adam with L2") {
  Var p(Tensor::from_vector(std::vector<double>{0.5, -1.0, 2.0}, {3}), true);
  AdamW adamw({p}, {.learning_rate = 0.1, .eps = 1e-8, .weight_decay = 0.05});
  CHECK(adamw.name() == "AdamW");
  const std::vector<double> got = three_steps(adamw, p);
  const std::vector<double> torch = {0.7887673285917909, -0.6932588651916096, 2.263529913665533};
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(torch[i]).epsilon(1e-12));

  Var q(Tensor::from_vector(std::vector<double>{0.5, -1.0, 2.0}, {3}), true);
  Adam adam({q}, {.learning_rate = 0.1, .eps = 1e-8, .weight_decay = 0.05});
  CHECK(three_steps(adam, q) != got);
}

}  // namespace strand
