// General matrix multiply for the layers' big products (Dense, Conv1D through im2col):
// C (m, n) = beta * C + A (m, k) @ B (k, n). A and B are addressed by (row, col) strides, as in
// matmul_reference, so transposed views need no copy; C is row-major with row stride ldc.
//
// float32 products with at least kLibraryGemmMinMultiplyAdds multiply-adds, whose operands are
// each row- or column-contiguous, run on oneDNN's sgemm (bench/RESULTS.md, "GEMM libraries":
// it reaches 85-95% of this machine's FMA peak where OpenBLAS 0.3.21 and BLIS 0.9 reach 20-40%);
// everything else (float64, small or oddly strided products, a build without oneDNN) runs on
// matmul_fast. The readable oracle stays matmul_reference.
#pragma once

#include <cstdint>

namespace strand::kernels::cpu {

/// Below this many multiply-adds a library call costs more than it saves; the small products
/// of the reference model (Dense(16, 1) at batch 128) stay on strand's own loop.
inline constexpr int64_t kLibraryGemmMinMultiplyAdds = int64_t{1} << 15;

template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col, const T* b,
          int64_t b_row, int64_t b_col, T beta, T* c, int64_t ldc);

/// "onednn" when float32 GEMMs go to oneDNN in this build, else "strand".
const char* gemm_library();

}  // namespace strand::kernels::cpu
