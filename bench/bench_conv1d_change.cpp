// The change convolution of explanations' windowed passes (kernels/cpu/conv1d_change.h) at BPNet
// residual blocks' shapes: 64 -> 64 channels, 3 taps, a change of 2d + 17 columns (the window a
// one-base substitution reaches before the block of dilation d) into its 4d + 17 output
// columns. Seven alternates' changes in turn, as one ISM pass carries them. Epilogue 0: none;
// 1: the ReLU's change; 2: and the residual Add. GFLOP/s counts the useful multiply-adds only
// (each tap over the columns it reaches), so masked lanes and per-block overhead show as loss;
// compare with kernel_efficiency's FMA peak. One thread (the ISM runs one pass per thread).
// change_screen: the readout's screen of the same windows (kernels/cpu/conv1d_change_screen.h:
// bfloat16 with AVX-512 BF16, 16-bit integers with AVX2), its input's packing included, at the
// same useful multiply-adds.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/conv1d_change.h"
#include "kernels/cpu/conv1d_change_screen.h"
#include "tensor/generator.h"

namespace {

namespace cpu = strand::kernels::cpu;

constexpr int64_t kChannels = 64, kTaps = 3, kAlternates = 7;

void change_convolution(benchmark::State& state) {
  const int64_t dilation = state.range(0), epilogue_kind = state.range(1);
  const int64_t w_in = 2 * dilation + 17, w_out = w_in + 2 * dilation;
  strand::Generator rng(11);
  const auto uniform = [&](int64_t n) {
    std::vector<float> values(static_cast<size_t>(n));
    for (float& v : values) v = static_cast<float>(rng.next_double() - 0.5);
    return values;
  };
  const std::vector<float> weight = uniform(kChannels * kChannels * kTaps);
  const std::vector<float> change = uniform(kAlternates * kChannels * w_in);
  const std::vector<float> reference = uniform(kChannels * w_out);
  std::vector<float> out(static_cast<size_t>(kAlternates * kChannels * w_out));
  const cpu::ChangeConvTaps taps =
      cpu::pack_change_conv_taps(weight.data(), kChannels, kChannels, kTaps);
  cpu::ChangeConvEpilogue epilogue;
  if (epilogue_kind >= 1) {
    epilogue.relu_reference = reference.data();
    epilogue.reference_stride = w_out;
  }
  epilogue.add_input = epilogue_kind >= 2;
  epilogue.input_shift = dilation;  // 'same' padding: the middle tap's
  for (auto _ : state) {
    for (int64_t m = 0; m < kAlternates; ++m) {
      cpu::ChangeConvWindow window;
      window.dilation = dilation;
      window.d = change.data() + m * kChannels * w_in;
      window.w_in = w_in;
      window.shift0 = 2 * dilation;  // tap k reads input column j - (2 - k) * dilation
      window.out = out.data() + m * kChannels * w_out;
      window.w_out = w_out;
      cpu::conv1d_change(taps, window, epilogue);
    }
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 2.0 * kChannels * kChannels * kTaps * w_in * kAlternates;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void change_screen(benchmark::State& state) {
  if (!cpu::kChangeScreenAvailable) {
    state.SkipWithError("this build has no screen (neither AVX-512 BF16 nor AVX2)");
    return;
  }
  const int64_t dilation = state.range(0);
  const int64_t w_in = 2 * dilation + 17, w_out = w_in + 2 * dilation;
  strand::Generator rng(11);
  const auto uniform = [&](int64_t n) {
    std::vector<float> values(static_cast<size_t>(n));
    for (float& v : values) v = static_cast<float>(rng.next_double() - 0.5);
    return values;
  };
  const std::vector<float> weight = uniform(kChannels * kChannels * kTaps);
  const std::vector<float> change = uniform(kAlternates * kChannels * w_in);
  std::vector<float> reference = uniform(kChannels * w_out);
  for (float& r : reference) r *= 20.0F;  // most units decided, as in a trained model
  const cpu::ChangeScreenTaps taps =
      cpu::pack_change_screen_taps(weight.data(), kChannels, kChannels, kTaps);
  std::vector<uint32_t> pairs(static_cast<size_t>((kChannels + 1) / 2 * w_in));
  std::vector<float> norms(static_cast<size_t>(w_in));
  std::vector<int32_t> undecided;
  for (auto _ : state) {
    for (int64_t m = 0; m < kAlternates; ++m) {
      cpu::ChangeScreenWindow window;
      window.input_step = cpu::pack_change_screen_input(taps, change.data() + m * kChannels * w_in,
                                                        w_in, pairs.data(), norms.data());
      window.dilation = dilation;
      window.pairs = pairs.data();
      window.norms = norms.data();
      window.w_in = w_in;
      window.shift0 = 2 * dilation;
      window.reference = reference.data();
      window.reference_stride = w_out;
      window.w_out = w_out;
      undecided.clear();
      cpu::screen_relu_crossings(taps, window, undecided);
    }
    benchmark::DoNotOptimize(undecided.data());
  }
  const double flops = 2.0 * kChannels * kChannels * kTaps * w_in * kAlternates;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.counters["undecided"] =
      static_cast<double>(undecided.size()) / static_cast<double>(kChannels * w_out);
}

BENCHMARK(change_screen)->ArgNames({"dilation"})->Arg(32)->Arg(256)->UseRealTime();

BENCHMARK(change_convolution)
    ->ArgNames({"dilation", "epilogue"})
    ->ArgsProduct({{8, 32, 128, 256}, {0, 1, 2}})
    ->UseRealTime();

}  // namespace
