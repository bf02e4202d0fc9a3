// Mixed-precision GEMM on the CPU: C (m, n) = beta * C + bf16(A) (m, k) @ bf16(B) (k, n), the
// operands rounded to bfloat16 (to nearest even, kernels/bfloat16.h), their products summed in
// float32, C float32. What torch.autocast(dtype=torch.bfloat16) does to a matmul, but with the
// float32 sum kept rather than rounded to bfloat16 again. Runs on oneDNN's
// dnnl_gemm_bf16bf16f32 (AVX-512 BF16's vdpbf16ps: two products a lane per instruction, twice
// sgemm's rate) in fixed tiles of the output (kernels/cpu/gemm_tiles.h): a result does not
// depend on the thread count.
//
// Only where the CPU has AVX-512 BF16 or AMX: elsewhere oneDNN would emulate the bfloat16
// products more slowly than float32 runs, so callers check bf16_gemm_unavailable_reason()
// first (the CLI refuses `--precision bf16` there). Addressing as in gemm (kernels/cpu/gemm.h).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/gemm.h"

namespace strand::kernels::cpu {

/// The precision of a float32 GEMM's operands: float32, or rounded to bfloat16.
enum class GemmPrecision : uint8_t { kFloat32, kBfloat16 };

/// Why gemm_bf16 cannot run in this process ("this CPU has no AVX-512 BF16 or AMX", "this build
/// has no oneDNN", oneDNN capped below AVX-512 BF16); empty when it can.
std::string bf16_gemm_unavailable_reason();
inline bool bf16_gemm_available() { return bf16_gemm_unavailable_reason().empty(); }

/// Test hook: from now on, report the CPU as lacking AVX-512 BF16 and AMX (true), or as it is
/// (false).
void pretend_cpu_lacks_bf16_for_testing(bool lacks);

/// dst[i] = bfloat16 bits of src[i], to nearest even, for i < count.
void to_bfloat16(int64_t count, const float* src, uint16_t* dst);

/// C = beta * C + bf16(A) @ bf16(B), float32 sums. Throws strand::Error naming the reason where
/// bf16_gemm_unavailable_reason() is not empty.
void gemm_bf16(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row, int64_t a_col,
               const float* b, int64_t b_row, int64_t b_col, float beta, float* c, int64_t ldc);

/// A float32 matrix rounded to bfloat16 once, for GEMMs that reuse it. Stored as the row-major
/// BLAS call reads it: its rows ('N'), or its columns ('T') when the source's are contiguous,
/// each of ld elements.
struct Bf16Matrix {
  char trans = 'N';
  int64_t ld = 1;
  std::vector<uint16_t> values;
  /// The (rows, cols) matrix at src with strides (row_stride, col_stride), rounded.
  static Bf16Matrix round(int64_t rows, int64_t cols, const float* src, int64_t row_stride,
                          int64_t col_stride);
};

/// C = beta * C + A @ bf16(B), A (m, k) rounded already.
void gemm_bf16(int64_t m, int64_t n, int64_t k, const Bf16Matrix& a, const float* b, int64_t b_row,
               int64_t b_col, float beta, float* c, int64_t ldc);

/// gemm (kernels/cpu/gemm.h) at `precision`: float operands at kBfloat16 go to gemm_bf16;
/// float64 always runs in float64.
template <typename T>
void gemm(GemmPrecision precision, int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row,
          int64_t a_col, const T* b, int64_t b_row, int64_t b_col, T beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    if (precision == GemmPrecision::kBfloat16) {
      gemm_bf16(m, n, k, a, a_row, a_col, b, b_row, b_col, beta, c, ldc);
      return;
    }
  }
  gemm<T>(m, n, k, a, a_row, a_col, b, b_row, b_col, beta, c, ldc);
}

/// A GEMM's left operand A (m, k) that several products reuse (a convolution's weights, in every
/// sample's GEMM): at kBfloat16 (float) rounded once, when made (before the threads start: they
/// share it read-only); otherwise read in place.
template <typename T>
class ReusedLeftOperand {
 public:
  ReusedLeftOperand(GemmPrecision precision, int64_t m, int64_t k, const T* a, int64_t a_row,
                    int64_t a_col)
      : m_(m), k_(k), a_(a), a_row_(a_row), a_col_(a_col) {
    if constexpr (std::is_same_v<T, float>) {
      rounded_ = precision == GemmPrecision::kBfloat16;
      if (rounded_) bf16_ = Bf16Matrix::round(m, k, a, a_row, a_col);
    }
  }
  /// C (m, n) = beta * C + A @ B, at the operand's precision.
  void gemm(int64_t n, const T* b, int64_t b_row, int64_t b_col, T beta, T* c, int64_t ldc) const {
    if constexpr (std::is_same_v<T, float>) {
      if (rounded_) return gemm_bf16(m_, n, k_, bf16_, b, b_row, b_col, beta, c, ldc);
    }
    cpu::gemm<T>(m_, n, k_, a_, a_row_, a_col_, b, b_row, b_col, beta, c, ldc);
  }

 private:
  int64_t m_, k_;
  const T* a_;
  int64_t a_row_, a_col_;
  bool rounded_ = false;
  Bf16Matrix bf16_;
};

}  // namespace strand::kernels::cpu
