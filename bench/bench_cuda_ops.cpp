// CUDA micro-benchmarks (Google Benchmark, manual timing with a device synchronisation per
// iteration): strand's Conv1D kernels against cuDNN on the reference shape, the one-hot and
// fused ops, Adam per-parameter vs multi-tensor, and one epoch of the reference model eager vs
// replayed from a CUDA graph. Built in every configuration; without the CUDA backend (or
// without a GPU) each benchmark reports "skipped".
#include <benchmark/benchmark.h>

#ifdef STRAND_WITH_CUDA
#include <chrono>

#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/losses.h"
#include "layers/sequential.h"
#include "ops/cuda/optimizer_updates.h"
#include "optim/adam.h"
#include "tensor/cuda/conv_engine.h"
#include "tensor/cuda/device.h"
#include "tensor/cuda/graph.h"

namespace {

using namespace strand;

// Reference layer: B 128, C 4, L 500, O 16, K 15.
constexpr int64_t kB = 128, kC = 4, kL = 500, kO = 16, kK = 15;

bool skip_without_gpu(benchmark::State& state) {
  if (cuda::cuda_available()) return false;
  state.SkipWithError("skipped: no CUDA device");
  return true;
}

template <typename F>
void time_loop(benchmark::State& state, F&& work) {
  work();  // warm-up (and the conv choice measurement)
  cuda::synchronize();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    work();
    cuda::synchronize();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

Tensor device_uniform(const Shape& shape, uint64_t seed) {
  Generator g(seed);
  return Tensor::uniform(shape, -1, 1, g, DType::kFloat32, Device::cuda());
}

Tensor device_codes(uint64_t seed) {
  Generator g(seed);
  std::vector<uint8_t> codes(static_cast<size_t>(kB * kL));
  for (auto& c : codes) c = static_cast<uint8_t>(g.next_below(4));
  return Tensor::from_vector(codes, {kB, kL}).to(Device::cuda());
}

void BM_Conv1dForward(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const auto algorithm = static_cast<cuda::ConvAlgorithm>(state.range(0));
  if (algorithm == cuda::ConvAlgorithm::kCudnn && !cuda::cudnn_available()) {
    state.SkipWithError("skipped: built without cuDNN");
    return;
  }
  cuda::set_conv_algorithm(algorithm);
  const Tensor x = device_uniform({kB, kC, kL}, 1), w = device_uniform({kO, kC, kK}, 2);
  const Tensor b = device_uniform({kO}, 3);
  time_loop(state, [&] { benchmark::DoNotOptimize(ops::conv1d(x, w, b, {})); });
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
}
BENCHMARK(BM_Conv1dForward)->Arg(1)->Arg(2)->Arg(0)->ArgName("own1_cudnn2_auto0")->UseManualTime();

void BM_Conv1dBackwardWeight(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const auto algorithm = static_cast<cuda::ConvAlgorithm>(state.range(0));
  if (algorithm == cuda::ConvAlgorithm::kCudnn && !cuda::cudnn_available()) {
    state.SkipWithError("skipped: built without cuDNN");
    return;
  }
  cuda::set_conv_algorithm(algorithm);
  const Tensor x = device_uniform({kB, kC, kL}, 1);
  const Tensor g = device_uniform({kB, kO, kL - kK + 1}, 2);
  time_loop(state, [&] {
    benchmark::DoNotOptimize(ops::conv1d_backward_weight(g, x, {kO, kC, kK}, {}));
  });
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
}
BENCHMARK(BM_Conv1dBackwardWeight)->Arg(1)->Arg(2)->ArgName("own1_cudnn2")->UseManualTime();

void BM_Conv1dOneHot(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const Tensor codes = device_codes(4);
  const Tensor w = device_uniform({kO, 4, kK}, 5), b = device_uniform({kO}, 6);
  time_loop(state, [&] { benchmark::DoNotOptimize(ops::conv1d(codes, w, b, {})); });
}
BENCHMARK(BM_Conv1dOneHot)->UseManualTime();

void BM_Conv1dReluMaxFused(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const Tensor codes = device_codes(7);
  const Tensor w = device_uniform({kO, 4, kK}, 8), b = device_uniform({kO}, 9);
  time_loop(state, [&] { benchmark::DoNotOptimize(ops::conv1d_relu_max(codes, w, b, {})); });
}
BENCHMARK(BM_Conv1dReluMaxFused)->UseManualTime();

void BM_AdamUpdate(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const bool multi = state.range(0) == 1;
  std::vector<Tensor> p, g, m, v;
  for (int i = 0; i < 32; ++i) {  // 32 parameters of 1..32 Ki elements
    const Shape shape{1024 * (i + 1)};
    p.push_back(device_uniform(shape, 10 + i));
    g.push_back(device_uniform(shape, 50 + i));
    m.push_back(Tensor::zeros(shape, DType::kFloat32, Device::cuda()));
    v.push_back(Tensor::zeros(shape, DType::kFloat32, Device::cuda()));
  }
  std::vector<Tensor*> pp, mm, vv;
  std::vector<const Tensor*> gg;
  for (int i = 0; i < 32; ++i) {
    pp.push_back(&p[i]);
    gg.push_back(&g[i]);
    mm.push_back(&m[i]);
    vv.push_back(&v[i]);
  }
  const AdamParams params{{1e-3, 0.9, 0.999, 1e-7, 0.0}, 1};
  time_loop(state, [&] {
    if (multi) {
      cuda::adam_update_multi(pp, gg, mm, vv, params);
    } else {
      for (int i = 0; i < 32; ++i)
        dispatch<AdamUpdateOp>(Device::cuda(), p[i], g[i], m[i], v[i], params, Tensor());
    }
  });
}
BENCHMARK(BM_AdamUpdate)->Arg(0)->Arg(1)->ArgName("multi")->UseManualTime();

// One epoch (100 batches of 128 x 500 bp) of the reference model; range(0) = 1 replays a
// captured step (timing only: a replayed Adam step keeps the captured bias correction).
void BM_ReferenceEpoch(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const bool graph_mode = state.range(0) == 1;
  manual_seed(0);
  Sequential model;
  model.add(Conv1D(4, 16, 15));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(16, 1));
  model.add(Sigmoid());
  model.to(Device::cuda());
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-3});
  const BinaryCrossEntropy loss_fn;
  std::vector<Tensor> inputs, labels;
  Generator rng(1);
  for (int i = 0; i < 100; ++i) {
    inputs.push_back(device_codes(100 + i));
    std::vector<float> y(kB);
    for (float& t : y) t = static_cast<float>(rng.next_below(2));
    labels.push_back(Tensor::from_vector(y, {kB, 1}).to(Device::cuda()));
  }
  Tensor x = inputs[0].clone(), y = labels[0].clone();
  const auto step = [&] {
    optimizer.zero_grad();
    const Var loss = loss_fn(model.forward_layers(Var(x), model.size() - 1), Var(y));
    loss.backward();
    optimizer.step();
  };
  step();
  cuda::CudaGraph graph;
  if (graph_mode) graph.capture(step);
  time_loop(state, [&] {
    for (int i = 0; i < 100; ++i) {
      x.copy_(inputs[i]);
      y.copy_(labels[i]);
      graph_mode ? graph.replay() : step();
    }
  });
  state.counters["samples/s"] =
      benchmark::Counter(100.0 * kB, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReferenceEpoch)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("graph")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

#else
// Without the CUDA backend there is nothing to measure.
static void BM_CudaUnavailable(benchmark::State& state) {
  state.SkipWithError("skipped: strand was built without the CUDA backend");
  for (auto _ : state) {
  }
}
BENCHMARK(BM_CudaUnavailable);
#endif
