// The example's own test: GatedConv1D's gradient against finite differences (strand's
// gradcheck, float64), and the layer inside a model that learns. Returns non-zero on failure.
#include <strand/autograd.h>
#include <strand/layers.h>
#include <strand/optim.h>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gated_conv1d.h"

using namespace strand;

namespace {

int failures = 0;

void expect(bool condition, const char* what) {
  std::printf("%s: %s\n", condition ? "ok  " : "FAIL", what);
  if (!condition) ++failures;
}

// d(loss)/d(x, w, b) of gate(conv1d(x, w, b)), the composition GatedConv1D::forward runs.
void check_gradient() {
  Generator generator(7);
  const auto f64 = [&](const Shape& shape) {
    return Var(Tensor::normal(shape, 0.0, 1.0, generator, DType::kFloat64), true);
  };
  const std::vector<Var> inputs = {f64({2, 3, 9}), f64({2 * 4, 3, 5}), f64({2 * 4})};
  const auto fn = [](const std::vector<Var>& v) {
    return my_lab::gate(conv1d(v[0], v[1], v[2], Conv1DParams{}));
  };
  const GradcheckResult result = gradcheck(fn, inputs);
  if (!result.ok) std::printf("  %s\n", result.message.c_str());
  expect(result.ok, "gradcheck of gate(conv1d(x, w, b)) in float64");
}

// The layer computes exactly gate(conv1d(...)) with its own parameters, and has the shapes
// output_shape() promises.
void check_layer() {
  Generator generator(3);
  my_lab::GatedConv1D layer(4, 6, 5, {}, generator);
  const Var x(Tensor::normal({2, 4, 20}, 0.0, 1.0, generator));
  const Var y = layer(x);
  const Var expected =
      my_lab::gate(conv1d(x, layer.conv().weight(), layer.conv().bias(), Conv1DParams{}));
  double max_diff = 0.0;
  const auto got = y.value().to_vector<float>(), want = expected.value().to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i)
    max_diff = std::max(max_diff, static_cast<double>(std::fabs(got[i] - want[i])));
  expect(y.shape() == Shape({2, 6, 16}), "forward shape (2, 6, 16)");
  expect(layer.output_shape({4, 20}) == Shape({6, 16}), "output_shape (6, 16)");
  expect(max_diff == 0.0, "forward == gate(conv1d(x, w, b))");
  expect(layer.parameter_count() == 12 * 4 * 5 + 12, "parameters: conv.weight, conv.bias");
}

// GatedConv1D in a model over base codes: a few Adam steps on one batch lower the loss.
void check_model_learns() {
  Generator generator(11);
  Sequential model;
  model.add(my_lab::GatedConv1D(4, 8, 9, {}, generator));
  model.add(GlobalMaxPool1D());
  model.add(Dense(8, 1, true, generator));
  model.add(Sigmoid());
  std::printf("%s", model.summary({50}).c_str());

  std::vector<uint8_t> codes(16 * 50);
  for (uint8_t& code : codes) code = static_cast<uint8_t>(generator.next_below(4));
  std::vector<float> labels(16);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<float>(i % 2);
  const Var input(Tensor::from_vector(codes, {16, 50}));
  const Var target(Tensor::from_vector(labels, {16, 1}));

  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-2});
  const BinaryCrossEntropy loss_fn;
  double first = 0.0, last = 0.0;
  for (int step = 0; step < 40; ++step) {
    optimizer.zero_grad();
    const Var loss = loss_fn(model.forward_layers(input, model.size() - 1), target);
    loss.backward();
    optimizer.step();
    (step == 0 ? first : last) = loss.value().item();
  }
  std::printf("  loss %.4f -> %.4f\n", first, last);
  expect(std::isfinite(last) && last < first, "training lowers the loss");
}

}  // namespace

int main() {
  check_gradient();
  check_layer();
  check_model_learns();
  return failures == 0 ? 0 : 1;
}
