// One macro per library for checking CUDA runtime, cuBLAS and cuDNN calls. A failure throws
// strand::Error naming the call, the source location and the library's own error text:
//   STRAND_CUDA_CHECK(cudaMemcpyAsync(...));
//   -> "CUDA error: cudaMemcpyAsync(...) failed at kernels/cuda/x.cpp:42: invalid argument"
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace strand::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);
[[noreturn]] void throw_library_error(const char* library, int status, const std::string& text,
                                      const char* call, const char* file, int line);
/// "<op> (CUDA): expected float32 or float64, got <dtype>".
[[noreturn]] void throw_dtype_error(const char* op, int dtype);

}  // namespace strand::cuda

#define STRAND_CUDA_CHECK(call)                                                         \
  do {                                                                                  \
    const cudaError_t strand_cuda_status_ = (call);                                     \
    if (strand_cuda_status_ != cudaSuccess) {                                           \
      ::strand::cuda::throw_cuda_error(strand_cuda_status_, #call, __FILE__, __LINE__); \
    }                                                                                   \
  } while (false)

/// After a kernel launch: reports launch-configuration errors at the launch site.
#define STRAND_CUDA_CHECK_LAUNCH() STRAND_CUDA_CHECK(cudaGetLastError())

#define STRAND_CUBLAS_CHECK(call)                                                              \
  do {                                                                                         \
    const cublasStatus_t strand_cublas_status_ = (call);                                       \
    if (strand_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                                      \
      ::strand::cuda::throw_library_error("cuBLAS", static_cast<int>(strand_cublas_status_),   \
                                          cublasGetStatusString(strand_cublas_status_), #call, \
                                          __FILE__, __LINE__);                                 \
    }                                                                                          \
  } while (false)

#define STRAND_CUDNN_CHECK(call)                                                            \
  do {                                                                                      \
    const cudnnStatus_t strand_cudnn_status_ = (call);                                      \
    if (strand_cudnn_status_ != CUDNN_STATUS_SUCCESS) {                                     \
      ::strand::cuda::throw_library_error("cuDNN", static_cast<int>(strand_cudnn_status_),  \
                                          cudnnGetErrorString(strand_cudnn_status_), #call, \
                                          __FILE__, __LINE__);                              \
    }                                                                                       \
  } while (false)
