// kernels/cpu/gemm.h against the readable matmul_reference: both routes (strand's loop for
// small products and float64, the library for large float32 ones), transposed operand views,
// accumulation (beta = 1) and a C with a row stride wider than n.
#include <doctest/doctest.h>

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/isa.h"
#include "kernels/cpu/matmul.h"
#include "tensor/generator.h"
#include "test_helpers.h"

namespace strand {
namespace {

using testing::random_values;

struct GemmCase {
  int64_t m, n, k;
  bool a_transposed, b_transposed;
};

}  // namespace

TEST_CASE_TEMPLATE("gemm matches matmul_reference on both routes and every operand layout", T,
                   float, double) {
  const std::vector<GemmCase> cases = {
      {3, 5, 4, false, false},
      {7, 2, 9, true, false},
      {4, 6, 3, false, true},
      {2, 3, 5, true, true},
      {64, 96, 80, false, false},
      {96, 64, 80, true, false},
      {33, 130, 70, false, true},
      {130, 33, 70, true, true},
      {1, 300, 200, false, false},
      // Large enough to be split into tiles for the threads, by rows and by columns.
      {300, 200, 100, true, false},
      {150, 420, 64, false, true},
  };
  for (const GemmCase& c : cases) {
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.k);
    CAPTURE(c.a_transposed);
    CAPTURE(c.b_transposed);
    // A stored (m, k) row-major, or (k, m) row-major and read transposed; likewise B.
    const std::vector<T> a = random_values<T>(c.m * c.k, 1);
    const std::vector<T> b = random_values<T>(c.k * c.n, 2);
    const int64_t a_row = c.a_transposed ? 1 : c.k, a_col = c.a_transposed ? c.m : 1;
    const int64_t b_row = c.b_transposed ? 1 : c.n, b_col = c.b_transposed ? c.k : 1;
    std::vector<T> expected(static_cast<size_t>(c.m * c.n));
    kernels::cpu::matmul_reference<T>(c.m, c.n, c.k, a.data(), a_row, a_col, b.data(), b_row, b_col,
                                      expected.data());
    // C with two extra columns per row that must stay untouched, accumulated onto ones.
    const int64_t ldc = c.n + 2;
    std::vector<T> out(static_cast<size_t>(c.m * ldc), T(1));
    kernels::cpu::gemm<T>(c.m, c.n, c.k, a.data(), a_row, a_col, b.data(), b_row, b_col, T(1),
                          out.data(), ldc);
    const double tolerance = sizeof(T) == 4 ? 1e-4 * static_cast<double>(c.k) : 1e-12 * c.k;
    double worst = 0.0;
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        worst = std::max(
            worst, std::abs(double(out[i * ldc + j]) - (1.0 + double(expected[i * c.n + j]))));
      }
      CHECK(out[i * ldc + c.n] == T(1));
      CHECK(out[i * ldc + c.n + 1] == T(1));
    }
    CHECK(worst < tolerance);
    // beta = 0 overwrites whatever C held.
    std::vector<T> fresh(static_cast<size_t>(c.m * c.n), T(7));
    kernels::cpu::gemm<T>(c.m, c.n, c.k, a.data(), a_row, a_col, b.data(), b_row, b_col, T(0),
                          fresh.data(), c.n);
    double worst_fresh = 0.0;
    for (size_t i = 0; i < fresh.size(); ++i) {
      worst_fresh = std::max(worst_fresh, std::abs(double(fresh[i]) - double(expected[i])));
    }
    CHECK(worst_fresh < tolerance);
  }
}

TEST_CASE("gemm names the library it uses for float32") {
  const std::string library = kernels::cpu::gemm_library();
  CHECK((library == "onednn" || library == "strand"));
}

// oneDNN's sgemm would split a product's k among the threads on AVX2; strand's tiles depend on
// the shape alone, so C has the same bits at every thread count, with beta 0 and 1.
TEST_CASE("gemm gives the same bits at 1, 2 and 3 threads") {
  const int previous = omp_get_max_threads();
  for (const GemmCase& c : std::vector<GemmCase>{{300, 200, 1000, false, false},
                                                 {24, 900, 600, true, false},
                                                 {700, 40, 2000, false, true},
                                                 {128, 128, 4096, false, false}}) {
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.k);
    const std::vector<float> a = random_values<float>(c.m * c.k, 21);
    const std::vector<float> b = random_values<float>(c.k * c.n, 22);
    const int64_t a_row = c.a_transposed ? 1 : c.k, a_col = c.a_transposed ? c.m : 1;
    const int64_t b_row = c.b_transposed ? 1 : c.n, b_col = c.b_transposed ? c.k : 1;
    const auto product = [&](int threads, float beta) {
      omp_set_num_threads(threads);
      std::vector<float> out = random_values<float>(c.m * c.n, 23);
      kernels::cpu::gemm<float>(c.m, c.n, c.k, a.data(), a_row, a_col, b.data(), b_row, b_col, beta,
                                out.data(), c.n);
      return out;
    };
    for (const float beta : {0.0F, 1.0F}) {
      const std::vector<float> one = product(1, beta);
      CHECK(product(2, beta) == one);
      CHECK(product(3, beta) == one);
    }
  }
  omp_set_num_threads(previous);
}

// CI runs the suite a second time from a build for x86-64-v3 with oneDNN capped to AVX2, and
// sets STRAND_EXPECT_ISA=avx2 there: this checks that both really run their AVX2 code.
TEST_CASE("the CPU kernels and oneDNN run on the instruction set STRAND_EXPECT_ISA names") {
  const char* expected = std::getenv("STRAND_EXPECT_ISA");
  const std::string kernel_isa = kernels::cpu::kernel_isa();
  const std::string gemm_isa = kernels::cpu::gemm_isa();
  MESSAGE("strand's kernels: " << kernel_isa << "; oneDNN sgemm: " << gemm_isa);
  if (expected == nullptr) return;
  CHECK(kernel_isa == expected);
  if (std::string(kernels::cpu::gemm_library()) == "onednn") CHECK(gemm_isa == expected);
}

}  // namespace strand
