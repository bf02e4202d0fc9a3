// Google Benchmark of the example layers: GatedConv1D (examples/gated_conv1d) against a plain
// Conv1D + ReLU with the same output channels, forward and forward + backward, over DNA base
// codes; and the custom swish op (examples/custom_op) against the composed x * sigmoid(x).
// Arguments: batch size (length 500, 16 output channels, kernel 15).
#include <benchmark/benchmark.h>

#include <strand/layers.h>
#include <vector>

#include "gated_conv1d.h"
#include "swish.h"

using namespace strand;

namespace {

constexpr int64_t kLength = 500, kChannels = 16, kKernel = 15;

Var random_codes(int64_t batch) {
  Generator generator(1);
  std::vector<uint8_t> codes(static_cast<size_t>(batch * kLength));
  for (uint8_t& code : codes) code = static_cast<uint8_t>(generator.next_below(4));
  return Var(Tensor::from_vector(codes, {batch, kLength}));
}

template <typename MakeLayer>
void run(benchmark::State& state, MakeLayer make_layer, bool backward) {
  const int64_t batch = state.range(0);
  const Var input = random_codes(batch);
  auto layer = make_layer();
  for (auto _ : state) {
    layer->zero_grad();
    const Var out = sum(layer->forward(input));
    if (backward) out.backward();
    benchmark::DoNotOptimize(out.value().raw_data());
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

std::shared_ptr<Layer> gated() {
  return std::make_shared<my_lab::GatedConv1D>(4, kChannels, kKernel);
}
std::shared_ptr<Layer> conv_relu() {
  auto model = std::make_shared<Sequential>();
  model->add(Conv1D(4, kChannels, kKernel));
  model->add(ReLU());
  return model;
}

void BM_GatedConv1D_Forward(benchmark::State& state) { run(state, gated, false); }
void BM_GatedConv1D_ForwardBackward(benchmark::State& state) { run(state, gated, true); }
void BM_Conv1DReLU_Forward(benchmark::State& state) { run(state, conv_relu, false); }
void BM_Conv1DReLU_ForwardBackward(benchmark::State& state) { run(state, conv_relu, true); }

// x: (batch, 16, 500) float32, forward + backward.
template <typename Fn>
void run_activation(benchmark::State& state, Fn fn) {
  Generator generator(2);
  Var x(Tensor::normal({state.range(0), kChannels, kLength}, 0.0, 1.0, generator), true);
  for (auto _ : state) {
    x.zero_grad();
    const Var out = sum(fn(x));
    out.backward();
    benchmark::DoNotOptimize(x.grad().raw_data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
void BM_Swish_CustomOp(benchmark::State& state) {
  run_activation(state, [](const Var& x) { return my_ops::swish(x); });
}
void BM_Swish_Composed(benchmark::State& state) {
  run_activation(state, [](const Var& x) { return x * sigmoid(x); });
}

}  // namespace

BENCHMARK(BM_GatedConv1D_Forward)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GatedConv1D_ForwardBackward)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv1DReLU_Forward)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv1DReLU_ForwardBackward)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Swish_CustomOp)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Swish_Composed)->Arg(64)->Unit(benchmark::kMillisecond);
