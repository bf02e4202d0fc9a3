// The machine's single-precision FMA peak, measured: 12 independent chains of fused
// multiply-adds per thread (enough to hide the FMA latency on two pipes), in the widest vectors
// the build targets (AVX-512 or AVX2), on every thread of the OpenMP team. Shared by the GEMM
// library comparison (bench/sgemm) and the kernel-efficiency table (bench/kernel_efficiency.cpp).
#pragma once

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

namespace strand::bench {

#if defined(__AVX512F__)
using FmaVector = __m512;
inline constexpr int kFmaLanes = 16;
inline FmaVector fma_step(FmaVector a, FmaVector b, FmaVector c) {
  return _mm512_fmadd_ps(a, b, c);
}
inline FmaVector fma_broadcast(float v) { return _mm512_set1_ps(v); }
inline float fma_first(FmaVector v) { return _mm512_cvtss_f32(v); }
#else
using FmaVector = __m256;
inline constexpr int kFmaLanes = 8;
inline FmaVector fma_step(FmaVector a, FmaVector b, FmaVector c) {
  return _mm256_fmadd_ps(a, b, c);
}
inline FmaVector fma_broadcast(float v) { return _mm256_set1_ps(v); }
inline float fma_first(FmaVector v) { return _mm256_cvtss_f32(v); }
#endif

/// GFLOP/s (2 per FMA lane) of the best pass within `budget` seconds, on omp_get_max_threads().
inline double fma_peak(double budget) {
  constexpr int kChains = 12;
  constexpr int64_t kIterations = 1 << 22;
  const auto seconds_since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double best = 0.0;
  const auto begin = std::chrono::steady_clock::now();
  while (seconds_since(begin) < budget) {
    const auto start = std::chrono::steady_clock::now();
    float sink = 0.0f;
#pragma omp parallel reduction(+ : sink)
    {
      FmaVector acc[kChains];
      const FmaVector mul = fma_broadcast(0.999999f);
      const FmaVector add = fma_broadcast(1e-7f);
      for (int i = 0; i < kChains; ++i) acc[i] = fma_broadcast(static_cast<float>(i));
      for (int64_t it = 0; it < kIterations; ++it) {
        for (int i = 0; i < kChains; ++i) acc[i] = fma_step(acc[i], mul, add);
      }
      for (int i = 0; i < kChains; ++i) sink += fma_first(acc[i]);
    }
    const double elapsed = seconds_since(start);
    const double flops =
        2.0 * kFmaLanes * kChains * static_cast<double>(kIterations) * omp_get_max_threads();
    best = std::max(best, flops / elapsed * 1e-9);
    if (sink == 12345.0f) std::printf(" ");  // keeps the chains' results alive
  }
  return best;
}

}  // namespace strand::bench
