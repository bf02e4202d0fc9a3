// Dropout: the rate and scaling of its masks, evaluation mode, and masks that depend on
// (seed, step, element) only. Gradients are a row of the op table; resuming a run with Dropout
// bit for bit is a CLI test (tests/cli/train_test.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "layers/dropout.h"
#include "layers/sequential.h"
#include "ops/reduction.h"

namespace strand {

TEST_CASE("dropout drops about rate of the elements and scales the rest") {
  const int64_t n = 200000;
  const Tensor ones = Tensor::ones({n}, DType::kFloat64);
  Dropout layer(0.3, 11);
  const std::vector<double> y = layer.forward(Var(ones)).value().to_vector<double>();
  int64_t dropped = 0;
  for (double v : y) {
    if (v == 0.0) {
      ++dropped;
    } else {
      CHECK(v == doctest::Approx(1.0 / 0.7));
    }
  }
  // Binomial(n, 0.3): the standard deviation of the fraction is about 0.001.
  CHECK(std::abs(static_cast<double>(dropped) / n - 0.3) < 0.006);
}

TEST_CASE("dropout masks are a function of seed, step and element alone") {
  const Tensor x = Tensor::ones({64, 32}, DType::kFloat32);
  Dropout a(0.5, 3), b(0.5, 3), other_seed(0.5, 4);
  const auto first = a.forward(Var(x)).value().to_vector<float>();
  CHECK(b.forward(Var(x)).value().to_vector<float>() == first);           // same seed, step 0
  CHECK(other_seed.forward(Var(x)).value().to_vector<float>() != first);  // another seed
  CHECK(a.forward(Var(x)).value().to_vector<float>() != first);           // step 1
  a.set_step(0);
  CHECK(a.forward(Var(x)).value().to_vector<float>() == first);  // step 0 again
  // A strided view gets the mask of its contiguous copy.
  const Tensor wide = Tensor::ones({32, 64}, DType::kFloat32).transpose(0, 1);
  b.set_step(0);
  CHECK(b.forward(Var(wide)).value().to_vector<float>() == first);
}

TEST_CASE("dropout with a step tensor draws the mask of the tensor's step, forward and back") {
  const Tensor x = Tensor::ones({16, 40}, DType::kFloat32);
  Dropout host(0.4, 9), device(0.4, 9);
  Sequential holder;
  holder.add(Dropout(0.4, 9));
  Tensor step = Tensor::from_vector<int64_t>({5}, {1});
  device.set_step_tensor(step);
  host.set_step(5);
  const Var input(x, true);
  const Var out = device.forward(input);
  CHECK(out.value().to_vector<float>() == host.forward(Var(x)).value().to_vector<float>());
  device.set_step(0);  // the tensor wins over set_step
  step.fill_(6.0);     // what fit() does before the next step
  host.set_step(6);
  CHECK(device.forward(Var(x)).value().to_vector<float>() ==
        host.forward(Var(x)).value().to_vector<float>());
  // The gradient of the first forward reads the step again: kept elements pass 1 / (1 - rate).
  step.fill_(5.0);
  sum(out).backward();
  CHECK(input.grad().to_vector<float>() == out.value().to_vector<float>());
  // Recursive through a container; undefined returns the layer to its own count.
  holder.set_step_tensor(step);
  holder.set_step_tensor(Tensor());
  CHECK_THROWS_WITH_AS(device.set_step_tensor(Tensor::zeros({2}, DType::kInt64)),
                       doctest::Contains("one int64"), Error);
}

TEST_CASE("dropout passes everything through in evaluation mode and refuses a rate of 1") {
  Sequential model;
  model.add(Dropout(0.9, 5));
  model.eval();
  const Tensor x = Tensor::ones({3, 4}, DType::kFloat32);
  CHECK(model.forward(Var(x)).value().to_vector<float>() == x.to_vector<float>());
  CHECK_THROWS_WITH_AS(Dropout(1.0), doctest::Contains("rate must be in [0, 1)"), Error);
}

}  // namespace strand
