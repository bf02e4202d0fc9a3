// Launchers of strand's own Conv1D CUDA kernels (kernels/cuda/conv1d.cu): dense, one-hot
// gather and the fused Conv1D+ReLU+GlobalMaxPool, on contiguous operands. Contracts as in
// kernels/cpu/conv1d*.h (code >= 4 is N). Launchers take raw device pointers, sizes in elements and
// the stream to run on, and check their launch (STRAND_CUDA_CHECK_LAUNCH).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/conv1d_geometry.h"

namespace strand::kernels::cuda {

void conv1d_forward(DType dtype, const Conv1DGeometry& g, const void* x, const void* w,
                    const void* bias, void* out, cudaStream_t stream);
void conv1d_backward_input(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                           const void* w, void* grad_x, cudaStream_t stream);
void conv1d_backward_weight(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                            const void* x, void* grad_w, cudaStream_t stream);
/// out (B, O, L_out) += bias[o] (for library convolutions that leave the bias out).
void add_channel_bias(DType dtype, int64_t batch, int64_t channels, int64_t length,
                      const void* bias, void* out, cudaStream_t stream);
/// codes (B, L) -> out (B, 4, L): 1 in the row of each base, a column of zeros for N (code >= 4).
/// The one-hot convolutions' input for cuDNN, which has no gather convolution.
void one_hot_from_codes(DType dtype, int64_t batch, int64_t length, const uint8_t* codes, void* out,
                        cudaStream_t stream);
void conv1d_onehot_forward(DType dtype, const Conv1DGeometry& g, const uint8_t* codes,
                           const void* w, const void* bias, void* out, cudaStream_t stream);
void conv1d_onehot_backward_weight(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                                   const uint8_t* codes, void* grad_w, cudaStream_t stream);
/// Fused relu(max_t conv): codes != null selects the one-hot form (x unused).
void conv1d_relu_max(DType dtype, const Conv1DGeometry& g, const uint8_t* codes, const void* x,
                     const void* w, const void* bias, void* out, int64_t* argmax,
                     cudaStream_t stream);
void conv1d_relu_max_backward(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                              const uint8_t* codes, const void* x, const void* w, const void* out,
                              const int64_t* argmax, void* grad_x, void* grad_w, void* grad_bias,
                              cudaStream_t stream);

}  // namespace strand::kernels::cuda
