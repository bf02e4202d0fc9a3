// A consumer of strand: the umbrella headers, namespaced headers, a tiny model over DNA base codes,
// one training step. Returns non-zero when the step does not change the parameters or the loss is
// not finite.
#include <strand/autograd.h>
#include <strand/layers.h>
#include <strand/optim.h>
#include <strand/tensor.h>
#include <strand/train.h>
#include <strand/variants.h>
#include <cmath>
#include <cstdio>
#include <vector>

#include <strand/layers/conv1d.h>  // a namespaced header of one folder
#include <strand/ops/conv1d.h>

#include "tensor/tensor.h"  // the repo-root include layout works as well

int main() {
  using namespace strand;
  manual_seed(0);
  Sequential model;
  model.add(Conv1D(4, 4, 5));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(4, 1));
  model.add(Sigmoid());

  Generator generator(1);
  std::vector<uint8_t> codes(8 * 32);
  for (uint8_t& code : codes) code = static_cast<uint8_t>(generator.next_below(4));
  const Var input(Tensor::from_vector(codes, {8, 32}));
  const Var target(Tensor::from_vector(std::vector<float>{0, 1, 0, 1, 0, 1, 0, 1}, {8, 1}));

  Adam optimizer(model.trainable_parameters());
  const BinaryCrossEntropy loss_fn;
  const std::vector<float> before = model.parameters()[0].value().to_vector<float>();
  optimizer.zero_grad();
  const Var loss = loss_fn(train::training_output(model, loss_fn, input), target);
  loss.backward();
  optimizer.step();
  const std::vector<float> after = model.parameters()[0].value().to_vector<float>();

  const double value = loss.value().item();
  std::printf("strand consumer: %lld parameters, loss %.4f, step %lld\n",
              static_cast<long long>(model.parameter_count()), value,
              static_cast<long long>(optimizer.step_count()));
  const bool geometry_ok = conv1d_out_length(32, 5, Conv1DParams{}) == 28;  // ops/conv1d.h
  return std::isfinite(value) && before != after && geometry_ok ? 0 : 1;
}
