// STRAND_HOST_DEVICE: marks the scalar math that the CPU loops and the CUDA kernels share
// (kernels/*_math.h, core/splitmix64.h), so each formula is written once for both backends.
#pragma once

#if defined(__CUDACC__)
#define STRAND_HOST_DEVICE __host__ __device__
#else
#define STRAND_HOST_DEVICE
#endif
