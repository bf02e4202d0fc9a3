// Mixed-precision GEMM on the CPU: operands rounded to bfloat16, float32 sums, on oneDNN's
// dnnl_gemm_bf16bf16f32 in fixed output tiles (gemm_bf16.h).
#include "kernels/cpu/gemm_bf16.h"

#include <omp.h>

#include <algorithm>
#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <vector>

#include "core/error.h"
#include "kernels/bfloat16.h"
#include "kernels/cpu/gemm_tiles.h"
#include "kernels/cpu/strided_loop.h"

#ifdef STRAND_WITH_ONEDNN
#include <dnnl.h>

// oneDNN exports its bfloat16 GEMM (C API, row-major like dnnl_sgemm; bfloat16_t is a struct of
// the 16 bits) but 2.6's public header does not declare it. Declared here under strand's own
// name bound to the exported symbol, so that a oneDNN whose header does declare it (with its own
// bfloat16 type) cannot conflict.
extern "C" dnnl_status_t strand_dnnl_gemm_bf16bf16f32(
    char transa, char transb, dnnl_dim_t m, dnnl_dim_t n, dnnl_dim_t k, float alpha,
    const uint16_t* a, dnnl_dim_t lda, const uint16_t* b, dnnl_dim_t ldb, float beta, float* c,
    dnnl_dim_t ldc) __asm__("dnnl_gemm_bf16bf16f32");
#endif

namespace strand::kernels::cpu {
namespace {

constexpr const char* kNoBf16Cpu = "this CPU has no AVX-512 BF16 or AMX";

std::atomic<bool>& pretend_lacking() {
  static std::atomic<bool> lacking{false};
  return lacking;
}

// CPUID and XGETBV read directly: clang 14's __builtin_cpu_supports knows neither "avx512bf16"
// nor "amx-bf16". AVX-512 BF16 (leaf 7.1 EAX bit 5) needs the OS to save the ZMM state (XCR0
// bits 1, 2, 5-7); AMX-BF16 (leaf 7.0 EDX bit 22) the tile state (XCR0 bits 17-18).
bool cpu_has_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid(1, a, b, c, d);
  if (((c >> 27) & 1U) == 0) return false;  // no OSXSAVE: XGETBV is not available
  __cpuid_count(7, 0, a, b, c, d);
  const bool amx_bf16 = ((d >> 22) & 1U) != 0;
  __cpuid_count(7, 1, a, b, c, d);
  const bool avx512_bf16 = ((a >> 5) & 1U) != 0;
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  const bool zmm_state = (xcr0_low & 0xE6U) == 0xE6U;
  const bool tile_state = (xcr0_low & (3U << 17)) == (3U << 17);
  return (avx512_bf16 && zmm_state) || (amx_bf16 && tile_state);
#else
  return false;  // aarch64's BF16 extension has no oneDNN GEMM here
#endif
}

// The reason, found once: the CPU's features and oneDNN's ISA limit do not change in a process.
std::string hardware_reason() {
#ifndef STRAND_WITH_ONEDNN
  return "this build of strand has no oneDNN, whose bfloat16 GEMM the CPU runs";
#else
  if (!cpu_has_bf16()) return kNoBf16Cpu;
  const auto isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
  const auto bf16 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_bf16);
  if ((isa & bf16) != bf16) {
    return "oneDNN is limited to an instruction set below AVX-512 BF16 (ONEDNN_MAX_CPU_ISA)";
  }
  return "";
#endif
}

// An operand converted to bfloat16, as the row-major BLAS call reads it: 'N' with rows of ld
// elements, or 'T' (stored transposed) with columns of ld elements.
struct Bf16Operand {
  char trans = 'N';
  int64_t ld = 1;
  const uint16_t* data = nullptr;
};

// Per-thread buffers, kept between calls (one per operand).
template <int kWhich>
uint16_t* operand_buffer(int64_t elements) {
  thread_local std::vector<uint16_t> buffer;
  if (static_cast<int64_t>(buffer.size()) < elements) buffer.resize(static_cast<size_t>(elements));
  return buffer.data();
}

// Rounds the (rows, cols) operand at src with strides (row_stride, col_stride) into dst (rows *
// cols values): rows copied as rows when they are contiguous, columns as columns when those are,
// else gathered row-major. Returns how the BLAS call reads dst.
Bf16Operand round_operand(int64_t rows, int64_t cols, const float* src, int64_t row_stride,
                          int64_t col_stride, uint16_t* dst) {
  const bool by_columns = col_stride != 1 && (row_stride == 1 || rows == 1);
  const int64_t lines = by_columns ? cols : rows, length = by_columns ? rows : cols;
  const int64_t line_stride = by_columns ? col_stride : row_stride;
  const int64_t step = by_columns ? row_stride : col_stride;
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && \
                                              rows * cols >= 4 * kParallelGrain)
  for (int64_t i = 0; i < lines; ++i) {
    const float* from = src + i * line_stride;
    uint16_t* to = dst + i * length;
    if (step == 1) {
      to_bfloat16(length, from, to);
    } else {
      for (int64_t j = 0; j < length; ++j) to[j] = bfloat16_from_float(from[j * step]);
    }
  }
  return {by_columns ? 'T' : 'N', std::max<int64_t>(length, 1), dst};
}

// The same into this thread's buffer for operand kWhich (0: A, 1: B).
template <int kWhich>
Bf16Operand convert_operand(int64_t rows, int64_t cols, const float* src, int64_t row_stride,
                            int64_t col_stride) {
  return round_operand(rows, cols, src, row_stride, col_stride,
                       operand_buffer<kWhich>(rows * cols));
}

// C = beta * C + A @ B on operands already rounded, in the float32 path's tiles
// (kernels/cpu/gemm_tiles.h), one single-threaded oneDNN call each.
void tiled_gemm(int64_t m, int64_t n, int64_t k, const Bf16Operand& av, const Bf16Operand& bv,
                float beta, float* c, int64_t ldc) {
#ifdef STRAND_WITH_ONEDNN
  for_each_gemm_tile(m, n, k, [&](const GemmTile& t) {
    const uint16_t* a_tile = av.trans == 'N' ? av.data + t.row * av.ld : av.data + t.row;
    const uint16_t* b_tile = bv.trans == 'N' ? bv.data + t.col : bv.data + t.col * bv.ld;
    const dnnl_status_t status =
        strand_dnnl_gemm_bf16bf16f32(av.trans, bv.trans, t.rows, t.cols, k, 1.0F, a_tile, av.ld,
                                     b_tile, bv.ld, beta, c + t.row * ldc + t.col, ldc);
    STRAND_CHECK(status == dnnl_success,
                 "gemm ({} x {} x {}): dnnl_gemm_bf16bf16f32 failed with status {}", t.rows, k,
                 t.cols, static_cast<int>(status));
  });
#else
  (void)m, (void)n, (void)k, (void)av, (void)bv, (void)beta, (void)c, (void)ldc;
#endif
}

// Checks that gemm_bf16 may run, and handles the products without a reduction (C = beta * C);
// returns whether a product is left to compute.
bool prepare(int64_t m, int64_t n, int64_t k, float beta, float* c, int64_t ldc) {
  const std::string reason = bf16_gemm_unavailable_reason();
  STRAND_CHECK(reason.empty(), "gemm ({} x {} x {}) in bfloat16: {}", m, k, n, reason);
  if (m == 0 || n == 0) return false;
  if (k == 0) {  // beta 0: C is not read
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0F ? 0.0F : beta * c[i * ldc + j];
    }
    return false;
  }
  return true;
}

}  // namespace

std::string bf16_gemm_unavailable_reason() {
  if (pretend_lacking().load()) return kNoBf16Cpu;
  static const std::string reason = hardware_reason();
  return reason;
}

void pretend_cpu_lacks_bf16_for_testing(bool lacks) { pretend_lacking().store(lacks); }

void to_bfloat16(int64_t count, const float* src, uint16_t* dst) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) dst[i] = bfloat16_from_float(src[i]);
}

void gemm_bf16(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row, int64_t a_col,
               const float* b, int64_t b_row, int64_t b_col, float beta, float* c, int64_t ldc) {
  if (!prepare(m, n, k, beta, c, ldc)) return;
  tiled_gemm(m, n, k, convert_operand<0>(m, k, a, a_row, a_col),
             convert_operand<1>(k, n, b, b_row, b_col), beta, c, ldc);
}

Bf16Matrix Bf16Matrix::round(int64_t rows, int64_t cols, const float* src, int64_t row_stride,
                             int64_t col_stride) {
  Bf16Matrix matrix;
  matrix.values.resize(static_cast<size_t>(rows * cols));
  const Bf16Operand view =
      round_operand(rows, cols, src, row_stride, col_stride, matrix.values.data());
  matrix.trans = view.trans;
  matrix.ld = view.ld;
  return matrix;
}

void gemm_bf16(int64_t m, int64_t n, int64_t k, const Bf16Matrix& a, const float* b, int64_t b_row,
               int64_t b_col, float beta, float* c, int64_t ldc) {
  if (!prepare(m, n, k, beta, c, ldc)) return;
  tiled_gemm(m, n, k, Bf16Operand{a.trans, a.ld, a.values.data()},
             convert_operand<1>(k, n, b, b_row, b_col), beta, c, ldc);
}

}  // namespace strand::kernels::cpu
