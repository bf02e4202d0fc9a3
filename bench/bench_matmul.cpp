// Matmul micro-benchmarks: the fast blocked OpenMP kernel versus the readable oracle, at a few
// square sizes and at the reference model's Dense shapes (batch 128 x 16 features -> 1, and
// the transposed-operand products its backward pass runs). items_per_second is
// multiply-adds/s (M * N * K per call) of wall time, as the fast kernel runs OpenMP threads.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/matmul.h"
#include "tensor/generator.h"

namespace {

namespace cpu = strand::kernels::cpu;

struct Operands {
  int64_t m, n, k;
  std::vector<float> a, b, out;

  Operands(int64_t m_, int64_t n_, int64_t k_) : m(m_), n(n_), k(k_) {
    strand::Generator rng(5);
    a.resize(static_cast<size_t>(m * k));
    b.resize(static_cast<size_t>(k * n));
    for (float& v : a) v = static_cast<float>(rng.next_double() - 0.5);
    for (float& v : b) v = static_cast<float>(rng.next_double() - 0.5);
    out.resize(static_cast<size_t>(m * n));
  }
};

// Args: M, N, K, and 1 when `a` is read transposed (a (K, M) in memory, as grad_w = x^T @ g).
template <bool kFast>
void BM_Matmul(benchmark::State& state) {
  Operands op(state.range(0), state.range(1), state.range(2));
  const bool transposed = state.range(3) == 1;
  const int64_t a_row = transposed ? 1 : op.k;
  const int64_t a_col = transposed ? op.m : 1;
  for (auto _ : state) {
    if constexpr (kFast) {
      cpu::matmul_fast(op.m, op.n, op.k, op.a.data(), a_row, a_col, op.b.data(), op.n, 1,
                       op.out.data());
    } else {
      cpu::matmul_reference(op.m, op.n, op.k, op.a.data(), a_row, a_col, op.b.data(), op.n, 1,
                            op.out.data());
    }
    benchmark::DoNotOptimize(op.out.data());
  }
  state.SetItemsProcessed(state.iterations() * op.m * op.n * op.k);
}

void sizes(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"M", "N", "K", "aT"})->UseRealTime();
  for (int64_t size : {64, 128, 256, 512}) bench->Args({size, size, size, 0});
  bench->Args({128, 1, 16, 0});  // Dense forward: x (128, 16) @ W^T (16, 1)
  bench->Args({16, 1, 128, 1});  // Dense grad_w: x^T (16, 128) @ g (128, 1)
  bench->Args({256, 256, 256, 1});
}

BENCHMARK(BM_Matmul<true>)->Name("BM_MatmulFast")->Apply(sizes);
BENCHMARK(BM_Matmul<false>)->Name("BM_MatmulReference")->Apply(sizes);

}  // namespace
