// kernel_isa(): read off the compiler's target macros of the library's own build.
#include "kernels/cpu/isa.h"

namespace strand::kernels::cpu {

const char* kernel_isa() {
#if defined(__AVX512F__) && defined(__AVX512BF16__)
  return "avx512_bf16";
#elif defined(__AVX512F__)
  return "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "avx2";
#else
  return "portable";
#endif
}

}  // namespace strand::kernels::cpu
