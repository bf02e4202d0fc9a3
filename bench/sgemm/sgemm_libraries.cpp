// Single-precision GEMM throughput of one library, on the shapes strand's layers produce, and
// the machine's FMA peak. Built once per library (bench/sgemm/CMakeLists.txt sets
// SGEMM_LIBRARY); bench/sgemm/run_sgemm_comparison.sh runs them side by side.
//
//   sgemm_<library> [--threads N] [--seconds S]
//
// Prints one line per shape: "<shape> <GFLOP/s>", then "peak <GFLOP/s>" (an FMA loop on
// every thread, bench/fma_peak.h). C (M, N) = A (M, K) @ B (K, N), row-major, or with B transposed
// (the weight-gradient product of a convolution).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/fma_peak.h"

#if defined(SGEMM_OPENBLAS) || defined(SGEMM_BLIS)
#include <cblas.h>  // BLIS reads its thread count from OMP_NUM_THREADS / BLIS_NUM_THREADS
#elif defined(SGEMM_ONEDNN)
#include <dnnl.h>
#else
#include "kernels/cpu/matmul.h"
#endif

namespace {

struct Shape {
  const char* name;
  int64_t m, n, k;
  bool b_transposed;
};

// C = A @ B (or A @ B^T); A (m, k), B (k, n) or (n, k), C (m, n), all row-major.
void sgemm(const Shape& s, const float* a, const float* b, float* c) {
#if defined(SGEMM_OPENBLAS) || defined(SGEMM_BLIS) || defined(SGEMM_ONEDNN)
  const int64_t ldb = s.b_transposed ? s.k : s.n;
#endif
#if defined(SGEMM_OPENBLAS) || defined(SGEMM_BLIS)
  cblas_sgemm(CblasRowMajor, CblasNoTrans, s.b_transposed ? CblasTrans : CblasNoTrans,
              static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k), 1.0f, a,
              static_cast<int>(s.k), b, static_cast<int>(ldb), 0.0f, c, static_cast<int>(s.n));
#elif defined(SGEMM_ONEDNN)
  dnnl_sgemm('N', s.b_transposed ? 'T' : 'N', s.m, s.n, s.k, 1.0f, a, s.k, b, ldb, 0.0f, c, s.n);
#else
  if (s.b_transposed) {
    strand::kernels::cpu::matmul_fast<float>(s.m, s.n, s.k, a, s.k, 1, b, 1, s.k, c);
  } else {
    strand::kernels::cpu::matmul_fast<float>(s.m, s.n, s.k, a, s.k, 1, b, s.n, 1, c);
  }
#endif
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// GFLOP/s of the best of repeated runs within `budget` seconds (at least 3 runs).
double measure(const Shape& s, double budget) {
  std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n)),
      c(static_cast<size_t>(s.m * s.n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7 % 13) - 6) / 8.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5 % 11) - 5) / 8.0f;
  sgemm(s, a.data(), b.data(), c.data());  // warm-up (packing buffers, threads)
  double best = 1e30;
  const auto begin = std::chrono::steady_clock::now();
  for (int run = 0; run < 3 || seconds_since(begin) < budget; ++run) {
    const auto start = std::chrono::steady_clock::now();
    sgemm(s, a.data(), b.data(), c.data());
    best = std::min(best, seconds_since(start));
  }
  return 2.0 * static_cast<double>(s.m * s.n * s.k) / best * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  double budget = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--seconds") == 0) budget = std::atof(argv[i + 1]);
  }
  omp_set_num_threads(threads);
#if defined(SGEMM_OPENBLAS)
  openblas_set_num_threads(threads);
#endif
  // Conv1D as GEMM over a whole batch (im2col): out (O, B*L_out) = W (O, C*K) @ col; the
  // weight gradient (O, C*K) = grad_out (O, B*L_out) @ col^T; the input gradient
  // col (C*K, B*L_out) = W^T @ grad_out. Dense layers are (B, in) @ (in, out).
  const Shape shapes[] = {
      {"square_1024", 1024, 1024, 1024, false},
      {"generic_conv2_forward (32 x 352 @ 352 x 8000)", 32, 8000, 352, false},
      {"generic_conv2_weight_grad (32 x 8000 @ (352 x 8000)^T)", 32, 352, 8000, true},
      {"basset_conv2_forward (200 x 3300 @ 3300 x 4096)", 200, 4096, 3300, false},
      {"basset_conv2_input_grad (3300 x 200 @ 200 x 4096)", 3300, 4096, 200, false},
      {"bpnet_dilated_forward (64 x 192 @ 192 x 8192)", 64, 8192, 192, false},
      {"dense_forward (64 x 2000 @ 2000 x 1000)", 64, 1000, 2000, false},
      {"dense_small (64 x 1000 @ 1000 x 164)", 64, 164, 1000, false},
  };
  for (const Shape& s : shapes) std::printf("%s\t%.1f\n", s.name, measure(s, budget));
  std::printf("peak (FMA loop, %d threads)\t%.1f\n", threads, strand::bench::fma_peak(budget));
  return 0;
}
