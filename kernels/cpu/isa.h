// The instruction sets strand's CPU code runs on. strand's own kernels choose theirs when the
// library is compiled (-march: STRAND_NATIVE, or STRAND_CPU_ARCH such as x86-64-v3 for AVX2 +
// FMA); oneDNN's sgemm chooses at run time, capped by the environment variable
// ONEDNN_MAX_CPU_ISA (e.g. AVX2). docs/design.md lists which kernels each ISA has.
#pragma once

namespace strand::kernels::cpu {

/// What strand's own kernels were compiled for: "avx512_bf16" (AVX-512F with AVX-512 BF16),
/// "avx512" (AVX-512F), "avx2" (AVX2 with FMA) or "portable" (the loops the compiler vectorises
/// for the target, e.g. aarch64).
const char* kernel_isa();

/// The instruction set oneDNN's sgemm runs on in this process ("avx2", "avx512", "avx512_bf16",
/// "amx", "sse41", ...), or "none" in a build without oneDNN.
const char* gemm_isa();

}  // namespace strand::kernels::cpu
