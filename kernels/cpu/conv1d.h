// Dense Conv1D CPU kernels (cross-correlation, as in PyTorch/Keras): readable oracles and fast
// OpenMP versions; and the backward pass that computes every gradient of a Conv1D (dense or
// one-hot, with or without a fused ReLU) in one pass over the batch. All tensors contiguous:
//   x: (B, C, L), w: (O, C, K), bias: (O) or null, out / grad_out: (B, O, L_out).
// `precision`: the precision of the GEMMs' operands (kernels/cpu/gemm_bf16.h); at kBfloat16 the
// fast float kernels round x, w and grad_out to bfloat16 where they enter a GEMM and sum in
// float32 (the oracles, the direct kernels for few output channels and float64 ignore it).
#pragma once

#include <cstdint>

#include "kernels/conv1d_geometry.h"
#include "kernels/cpu/gemm_bf16.h"

namespace strand::kernels::cpu {

template <typename T>
void conv1d_forward_reference(const Conv1DGeometry& g, const T* x, const T* w, const T* bias,
                              T* out);
/// relu: out = max(conv + bias, 0), applied in the pass that adds the bias (a fused ReLU).
template <typename T>
void conv1d_forward(const Conv1DGeometry& g, const T* x, const T* w, const T* bias, T* out,
                    bool relu = false, GemmPrecision precision = GemmPrecision::kFloat32);

// grad_x: (B, C, L), overwritten.
template <typename T>
void conv1d_backward_input_reference(const Conv1DGeometry& g, const T* grad_out, const T* w,
                                     T* grad_x);
template <typename T>
void conv1d_backward_input(const Conv1DGeometry& g, const T* grad_out, const T* w, T* grad_x,
                           GemmPrecision precision = GemmPrecision::kFloat32);

// grad_w: (O, C, K), overwritten.
template <typename T>
void conv1d_backward_weight_reference(const Conv1DGeometry& g, const T* grad_out, const T* x,
                                      T* grad_w);
template <typename T>
void conv1d_backward_weight(const Conv1DGeometry& g, const T* grad_out, const T* x, T* grad_w,
                            GemmPrecision precision = GemmPrecision::kFloat32);

/// Every gradient of a Conv1D in one parallel pass over the batch, each sample's grad_out read
/// while it is in cache: grad_w (O, C, K), and when not null grad_bias (O) and grad_x (B, C, L),
/// all overwritten. Input: x (B, C, L) float, or codes (B, L) when codes != null (one-hot, C = 4;
/// grad_x must then be null). relu_out (or null): the output of a fused ReLU; grad_out is masked
/// by relu_out > 0 first. grad_w and grad_bias sum per-thread partials over fixed contiguous
/// ranges of the batch, added in thread order: a result depends on the thread count only.
template <typename T>
void conv1d_backward(const Conv1DGeometry& g, const T* grad_out, const T* x, const uint8_t* codes,
                     const T* w, const T* relu_out, T* grad_x, T* grad_w, T* grad_bias,
                     GemmPrecision precision = GemmPrecision::kFloat32);
/// Oracle of conv1d_backward, from the reference kernels.
template <typename T>
void conv1d_backward_reference(const Conv1DGeometry& g, const T* grad_out, const T* x,
                               const uint8_t* codes, const T* w, const T* relu_out, T* grad_x,
                               T* grad_w, T* grad_bias);

}  // namespace strand::kernels::cpu
