// Conv1D micro-benchmarks at the reference shape (batch 128, C = 4, L = 500, O = 16, K = 15):
// the raw CPU kernels (dense and one-hot, forward and backward, fast versus oracle where the
// oracle is cheap enough to time) and the layer-level Conv1D -> ReLU -> GlobalMaxPool1D chain
// fused versus unfused, forward plus backward. items_per_second is samples/s of wall time
// (UseRealTime: the kernels run OpenMP threads, so the main thread's CPU time would mislead).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/conv1d.h"
#include "kernels/cpu/conv1d_columns.h"
#include "kernels/cpu/conv1d_onehot.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/sequential.h"
#include "ops/reduction.h"
#include "tensor/generator.h"

namespace {

using strand::kernels::Conv1DGeometry;
namespace cpu = strand::kernels::cpu;

constexpr int64_t kBatch = 128, kChannels = 4, kLength = 500, kFilters = 16, kTaps = 15;

// Random inputs, weights and upstream gradients of the reference shape, made once per benchmark.
struct Problem {
  Conv1DGeometry g = strand::conv_geometry({kBatch, kChannels, kLength},
                                           {kFilters, kChannels, kTaps}, strand::Conv1DParams{});
  std::vector<uint8_t> codes;
  std::vector<float> one_hot, w, bias, out, grad_out, grad_x, grad_w, grad_bias, fused_out,
      fused_grad;
  std::vector<int64_t> argmax;

  Problem() {
    strand::Generator rng(7);
    const auto uniform = [&](int64_t n) {
      std::vector<float> values(static_cast<size_t>(n));
      for (float& v : values) v = static_cast<float>(rng.next_double() - 0.5);
      return values;
    };
    codes.resize(static_cast<size_t>(kBatch * kLength));
    for (uint8_t& code : codes) code = static_cast<uint8_t>(rng.next_below(4));
    one_hot.resize(static_cast<size_t>(kBatch * kChannels * kLength));
    cpu::one_hot_from_codes(kBatch, kLength, codes.data(), one_hot.data());
    w = uniform(kFilters * kChannels * kTaps);
    bias = uniform(kFilters);
    out.resize(static_cast<size_t>(kBatch * kFilters * g.out_length));
    grad_out = uniform(kBatch * kFilters * g.out_length);
    grad_x.resize(one_hot.size());
    grad_w.resize(w.size());
    grad_bias.resize(bias.size());
    fused_out.resize(static_cast<size_t>(kBatch * kFilters));
    fused_grad = uniform(kBatch * kFilters);
    argmax.resize(fused_out.size());
  }
};

void finish(benchmark::State& state) { state.SetItemsProcessed(state.iterations() * kBatch); }

// ---- Dense (float one-hot input) kernels ----------------------------------------------

void BM_DenseForward(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_forward(p.g, p.one_hot.data(), p.w.data(), p.bias.data(), p.out.data());
    benchmark::DoNotOptimize(p.out.data());
  }
  finish(state);
}
BENCHMARK(BM_DenseForward)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DenseForwardOracle(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_forward_reference(p.g, p.one_hot.data(), p.w.data(), p.bias.data(), p.out.data());
    benchmark::DoNotOptimize(p.out.data());
  }
  finish(state);
}
BENCHMARK(BM_DenseForwardOracle)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DenseBackwardInput(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_backward_input(p.g, p.grad_out.data(), p.w.data(), p.grad_x.data());
    benchmark::DoNotOptimize(p.grad_x.data());
  }
  finish(state);
}
BENCHMARK(BM_DenseBackwardInput)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DenseBackwardWeight(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_backward_weight(p.g, p.grad_out.data(), p.one_hot.data(), p.grad_w.data());
    benchmark::DoNotOptimize(p.grad_w.data());
  }
  finish(state);
}
BENCHMARK(BM_DenseBackwardWeight)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- One-hot (gather from base codes) kernels -------------------------------------------

void BM_OnehotForward(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_onehot_forward(p.g, p.codes.data(), p.w.data(), p.bias.data(), p.out.data());
    benchmark::DoNotOptimize(p.out.data());
  }
  finish(state);
}
BENCHMARK(BM_OnehotForward)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_OnehotForwardOracle(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_onehot_forward_reference(p.g, p.codes.data(), p.w.data(), p.bias.data(),
                                         p.out.data());
    benchmark::DoNotOptimize(p.out.data());
  }
  finish(state);
}
BENCHMARK(BM_OnehotForwardOracle)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_OnehotBackwardWeight(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_onehot_backward_weight(p.g, p.grad_out.data(), p.codes.data(), p.grad_w.data());
    benchmark::DoNotOptimize(p.grad_w.data());
  }
  finish(state);
}
BENCHMARK(BM_OnehotBackwardWeight)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- Fused Conv1D + ReLU + GlobalMaxPool kernels ----------------------------------------

void BM_FusedOnehotForward(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_relu_max_onehot(p.g, p.codes.data(), p.w.data(), p.bias.data(), p.fused_out.data(),
                                p.argmax.data());
    benchmark::DoNotOptimize(p.fused_out.data());
  }
  finish(state);
}
BENCHMARK(BM_FusedOnehotForward)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_FusedOnehotForwardOracle(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_relu_max_onehot_reference(p.g, p.codes.data(), p.w.data(), p.bias.data(),
                                          p.fused_out.data(), p.argmax.data());
    benchmark::DoNotOptimize(p.fused_out.data());
  }
  finish(state);
}
BENCHMARK(BM_FusedOnehotForwardOracle)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_FusedDenseForward(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    cpu::conv1d_relu_max_dense(p.g, p.one_hot.data(), p.w.data(), p.bias.data(), p.fused_out.data(),
                               p.argmax.data());
    benchmark::DoNotOptimize(p.fused_out.data());
  }
  finish(state);
}
BENCHMARK(BM_FusedDenseForward)->Unit(benchmark::kMillisecond)->UseRealTime();

// Backward from a real forward's argmax, so the relu-open rows are realistic.
void BM_FusedBackward(benchmark::State& state) {
  const bool onehot = state.range(0) == 1;
  state.SetLabel(onehot ? "codes" : "dense, with grad_x");
  Problem p;
  cpu::conv1d_relu_max_onehot(p.g, p.codes.data(), p.w.data(), p.bias.data(), p.fused_out.data(),
                              p.argmax.data());
  for (auto _ : state) {
    cpu::conv1d_relu_max_backward(
        p.g, p.fused_grad.data(), onehot ? p.codes.data() : nullptr,
        onehot ? nullptr : p.one_hot.data(), p.w.data(), p.fused_out.data(), p.argmax.data(),
        onehot ? nullptr : p.grad_x.data(), p.grad_w.data(), p.grad_bias.data());
    benchmark::DoNotOptimize(p.grad_w.data());
  }
  finish(state);
}
BENCHMARK(BM_FusedBackward)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- Layer level: Conv1D -> ReLU -> GlobalMaxPool1D, forward + backward -----------------

// Arg 0: input (1 = uint8 base codes, 0 = float one-hot); arg 1: fusion on (1) or off (0).
void BM_ConvReluPoolTrainStep(benchmark::State& state) {
  const bool codes = state.range(0) == 1;
  const bool fused = state.range(1) == 1;
  state.SetLabel(std::string(codes ? "codes" : "one-hot float") +
                 (fused ? ", fused" : ", unfused"));
  Problem p;
  strand::Generator init(3);
  strand::Sequential chain;
  chain.add(strand::Conv1D(kChannels, kFilters, kTaps, {}, init));
  chain.add(strand::ReLU());
  chain.add(strand::GlobalMaxPool1D());
  chain.set_fusion(fused);
  const strand::Tensor input =
      codes ? strand::Tensor::from_vector(p.codes, {kBatch, kLength})
            : strand::Tensor::from_vector(p.one_hot, {kBatch, kChannels, kLength});
  for (auto _ : state) {
    chain.zero_grad();
    const strand::Var pooled = chain.forward(strand::Var(input));
    strand::sum(pooled).backward();
    benchmark::DoNotOptimize(chain.parameters()[0].grad().raw_data());
  }
  finish(state);
}
BENCHMARK(BM_ConvReluPoolTrainStep)
    ->Args({1, 1})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({0, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
