// Mixed precision on the CPU: the float32 -> bfloat16 rounding (kernels/bfloat16.h: ties to
// even, infinities, NaN, overflow, denormals), gemm_bf16 against a float64 oracle of the
// bfloat16-rounded operands on every operand layout (and within bfloat16's tolerance of the
// float32 operands' product), its independence of the thread count, and
// its refusal on a CPU without AVX-512 BF16 or AMX (the test hook).
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/bfloat16.h"
#include "kernels/cpu/gemm_bf16.h"
#include "test_helpers.h"

namespace strand {
namespace {

using kernels::bfloat16_from_float;
using kernels::float_from_bfloat16;
using kernels::round_to_bfloat16;
using testing::random_values;

float from_bits(uint32_t bits) {
  float value = 0.0F;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Restores the CPU's own answer when a test that pretends otherwise ends, thrown or not.
struct PretendLacking {
  PretendLacking() { kernels::cpu::pretend_cpu_lacks_bf16_for_testing(true); }
  ~PretendLacking() { kernels::cpu::pretend_cpu_lacks_bf16_for_testing(false); }
  PretendLacking(const PretendLacking&) = delete;
  PretendLacking& operator=(const PretendLacking&) = delete;
};

// Restores OpenMP's thread count.
struct ThreadsScope {
  explicit ThreadsScope(int threads) : saved(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~ThreadsScope() { omp_set_num_threads(saved); }
  ThreadsScope(const ThreadsScope&) = delete;
  ThreadsScope& operator=(const ThreadsScope&) = delete;
  int saved;
};

struct Layout {
  int64_t m, n, k;
  bool a_transposed, b_transposed;
};

// A (m, k) and B (k, n), stored row-major or transposed; C = beta * C0 + A @ B from
// gemm_bf16, with ldc = n + 3 (the extra columns must stay untouched).
struct Product {
  Layout s;
  std::vector<float> a, b, c;
  int64_t a_row, a_col, b_row, b_col, ldc;
  Product(const Layout& layout, float beta) : s(layout) {
    a = random_values<float>(s.m * s.k, 11);
    b = random_values<float>(s.k * s.n, 12);
    a_row = s.a_transposed ? 1 : s.k, a_col = s.a_transposed ? s.m : 1;
    b_row = s.b_transposed ? 1 : s.n, b_col = s.b_transposed ? s.k : 1;
    ldc = s.n + 3;
    c.assign(static_cast<size_t>(s.m * ldc), 0.5F);
    kernels::cpu::gemm_bf16(s.m, s.n, s.k, a.data(), a_row, a_col, b.data(), b_row, b_col, beta,
                            c.data(), ldc);
  }
  float a_at(int64_t i, int64_t p) const { return a[static_cast<size_t>(i * a_row + p * a_col)]; }
  float b_at(int64_t p, int64_t j) const { return b[static_cast<size_t>(p * b_row + j * b_col)]; }
};

}  // namespace

TEST_CASE("bfloat16 rounding: to nearest even, infinities, NaN, overflow and denormals") {
  CHECK(bfloat16_from_float(1.0F) == 0x3F80);
  CHECK(bfloat16_from_float(-2.0F) == 0xC000);
  CHECK(bfloat16_from_float(0.0F) == 0x0000);
  CHECK(bfloat16_from_float(-0.0F) == 0x8000);
  // Halfway cases go to the even neighbour; anything above half rounds up.
  CHECK(bfloat16_from_float(from_bits(0x3F808000U)) == 0x3F80);  // tie, even below
  CHECK(bfloat16_from_float(from_bits(0x3F818000U)) == 0x3F82);  // tie, odd below: up
  CHECK(bfloat16_from_float(from_bits(0x3F808001U)) == 0x3F81);  // just above half
  CHECK(bfloat16_from_float(from_bits(0x3F807FFFU)) == 0x3F80);  // just below half
  CHECK(bfloat16_from_float(from_bits(0xBF818000U)) == 0xBF82);  // negative tie
  // Infinities stay; the largest float rounds past the largest bfloat16 to infinity.
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(bfloat16_from_float(inf) == 0x7F80);
  CHECK(bfloat16_from_float(-inf) == 0xFF80);
  CHECK(bfloat16_from_float(std::numeric_limits<float>::max()) == 0x7F80);
  CHECK(bfloat16_from_float(from_bits(0x7F7F7FFFU)) == 0x7F7F);  // below the overflow point
  // NaN stays NaN, quiet, with its sign, even when its payload sits in the dropped bits only
  // (a plain rounding add would carry 0x7F800001 into infinity).
  CHECK(bfloat16_from_float(std::numeric_limits<float>::quiet_NaN()) == 0x7FC0);
  CHECK(bfloat16_from_float(from_bits(0x7F800001U)) == 0x7FC0);
  CHECK(bfloat16_from_float(from_bits(0xFF800001U)) == 0xFFC0);
  CHECK(std::isnan(round_to_bfloat16(from_bits(0x7F80FFFFU))));
  // Denormals round like any other value (ties to even): no flush to zero.
  CHECK(bfloat16_from_float(from_bits(0x00008000U)) == 0x0000);
  CHECK(bfloat16_from_float(from_bits(0x00018000U)) == 0x0002);
  CHECK(bfloat16_from_float(from_bits(0x00010001U)) == 0x0001);
  // Exact in both directions for a value with 8 significant bits.
  CHECK(float_from_bfloat16(0x3FC0) == 1.5F);
  CHECK(round_to_bfloat16(1.5F) == 1.5F);
  CHECK(round_to_bfloat16(1.0F + 1.0F / 512) == 1.0F);  // a quarter ulp below: down

  // The array conversion (vectorised) gives the scalar's bits, special values included.
  std::vector<float> values = random_values<float>(1000, 3);
  for (size_t i = 0; i < values.size(); i += 7) values[i] *= 1e30F;
  const uint32_t specials[] = {0x7F800000U, 0xFF800000U, 0x7FC00000U, 0x7F800001U, 0x3F808000U,
                               0x3F818000U, 0x00008000U, 0x7F7FFFFFU, 0x80000001U};
  for (size_t i = 0; i < std::size(specials); ++i) values[i * 100] = from_bits(specials[i]);
  std::vector<uint16_t> converted(values.size());
  kernels::cpu::to_bfloat16(static_cast<int64_t>(values.size()), values.data(), converted.data());
  for (size_t i = 0; i < values.size(); ++i) {
    CAPTURE(i);
    CHECK(converted[i] == bfloat16_from_float(values[i]));
  }
}

TEST_CASE("gemm_bf16 equals float64 products of the bfloat16-rounded operands, every layout") {
  const std::string reason = kernels::cpu::bf16_gemm_unavailable_reason();
  if (!reason.empty()) STRAND_SKIP(reason.c_str());
  const std::vector<Layout> layouts = {
      {3, 5, 4, false, false},     {7, 2, 9, true, false},       {4, 6, 3, false, true},
      {2, 3, 5, true, true},       {64, 96, 80, false, false},   {1, 300, 200, false, false},
      {300, 600, 75, false, true}, {130, 257, 190, true, false}, {33, 130, 1000, true, true},
  };
  for (const float beta : {0.0F, 1.0F}) {
    for (const Layout& s : layouts) {
      CAPTURE(s.m);
      CAPTURE(s.n);
      CAPTURE(s.k);
      CAPTURE(s.a_transposed);
      CAPTURE(s.b_transposed);
      CAPTURE(beta);
      const Product p(s, beta);
      double worst_excess = 0.0;       // the largest error beyond the bound (0: within it)
      double unrounded_excess = -1.0;  // the same against float32 operands: must exceed it
      double fp32_excess = 0.0;        // the error against float32 operands beyond bfloat16's bound
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          double exact = beta * 0.5, unrounded = beta * 0.5, magnitude = std::abs(beta * 0.5);
          double unrounded_magnitude = magnitude;
          for (int64_t q = 0; q < s.k; ++q) {
            const double x = round_to_bfloat16(p.a_at(i, q)), y = round_to_bfloat16(p.b_at(q, j));
            exact += x * y;
            magnitude += std::abs(x * y);
            unrounded += static_cast<double>(p.a_at(i, q)) * p.b_at(q, j);
            unrounded_magnitude += std::abs(static_cast<double>(p.a_at(i, q)) * p.b_at(q, j));
          }
          // Products of bfloat16 values are exact in float32; only the float32 sum rounds:
          // at most k + 1 roundings of 2^-24 relative to the sum of magnitudes.
          const double bound = (static_cast<double>(s.k) + 2.0) * 0x1p-24 * magnitude + 1e-30;
          const double error = std::abs(p.c[static_cast<size_t>(i * p.ldc + j)] - exact);
          worst_excess = std::max(worst_excess, error - bound);
          const double unrounded_error =
              std::abs(p.c[static_cast<size_t>(i * p.ldc + j)] - unrounded);
          unrounded_excess = std::max(unrounded_excess, unrounded_error - bound);
          // Against float32 operands, bfloat16's tolerance: each operand rounds by at most
          // 2^-9 relative, a product by 2^-8 + 2^-18, on top of the float32 sum's roundings.
          const double bf16_bound = (0x1p-8 + 0x1p-18) * unrounded_magnitude + bound;
          fp32_excess = std::max(fp32_excess, unrounded_error - bf16_bound);
        }
        for (int64_t j = s.n; j < p.ldc; ++j)
          CHECK(p.c[static_cast<size_t>(i * p.ldc + j)] == 0.5F);
      }
      CHECK(worst_excess <= 0.0);
      CHECK(fp32_excess <= 0.0);  // within bfloat16's tolerance of the float32 product
      // The operands really were rounded: somewhere the result is farther from the product of
      // the float32 operands than a float32 GEMM could be (for k >= 4, uniform values).
      if (s.k >= 4) CHECK(unrounded_excess > 0.0);
    }
  }
}

TEST_CASE("gemm_bf16 on an operand rounded once gives the bits of rounding it per call") {
  const std::string reason = kernels::cpu::bf16_gemm_unavailable_reason();
  if (!reason.empty()) STRAND_SKIP(reason.c_str());
  for (const bool transposed : {false, true}) {
    CAPTURE(transposed);
    const Layout s{130, 90, 75, transposed, false};
    const Product per_call(s, 0.0F);
    const kernels::cpu::Bf16Matrix a = kernels::cpu::Bf16Matrix::round(
        s.m, s.k, per_call.a.data(), per_call.a_row, per_call.a_col);
    CHECK(a.trans == (transposed ? 'T' : 'N'));
    std::vector<float> c(per_call.c.size(), 0.5F);
    kernels::cpu::gemm_bf16(s.m, s.n, s.k, a, per_call.b.data(), per_call.b_row, per_call.b_col,
                            0.0F, c.data(), per_call.ldc);
    CHECK(c == per_call.c);
  }
}

TEST_CASE("gemm_bf16 gives the same bits on 1, 2 and 3 threads, in a parallel region or not") {
  const std::string reason = kernels::cpu::bf16_gemm_unavailable_reason();
  if (!reason.empty()) STRAND_SKIP(reason.c_str());
  // Several tiles in both dimensions (kernels/cpu/gemm_tiles.h), a long reduction.
  const Layout s{300, 700, 500, false, false};
  std::vector<std::vector<float>> results;
  for (const int threads : {1, 2, 3}) {
    const ThreadsScope scope(threads);
    results.push_back(Product(s, 0.0F).c);
  }
  CHECK(results[1] == results[0]);
  CHECK(results[2] == results[0]);
  // Called by every thread of a team (as the convolutions call it), each its own product.
  std::vector<std::vector<float>> nested(2);
  {
    const ThreadsScope scope(2);
#pragma omp parallel num_threads(2)
    nested[static_cast<size_t>(omp_get_thread_num())] = Product(s, 0.0F).c;
  }
  CHECK(nested[0] == results[0]);
  CHECK(nested[1] == results[0]);
}

TEST_CASE("gemm_bf16 refuses a CPU without AVX-512 BF16 or AMX, naming what is missing") {
  const PretendLacking lacking;
  CHECK(kernels::cpu::bf16_gemm_unavailable_reason() == "this CPU has no AVX-512 BF16 or AMX");
  CHECK_FALSE(kernels::cpu::bf16_gemm_available());
  std::vector<float> a(4, 1.0F), b(4, 1.0F), c(4, 0.0F);
  CHECK_THROWS_WITH_AS(
      kernels::cpu::gemm_bf16(2, 2, 2, a.data(), 2, 1, b.data(), 2, 1, 0.0F, c.data(), 2),
      "gemm (2 x 2 x 2) in bfloat16: this CPU has no AVX-512 BF16 or AMX", Error);
}

}  // namespace strand
