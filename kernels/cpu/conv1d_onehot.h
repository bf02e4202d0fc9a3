// Conv1D over one-hot DNA computed from base codes, and the fused Conv1D+ReLU+GlobalMaxPool.
//
// A Conv1D over one-hot input is a gather: out[b, o, t] = bias[o] + sum_k w[o, base[t, k], k],
// where base[t, k] is the code at input position t * stride + k * dilation - pad_left. N codes
// and padding contribute nothing. No multiplications, and 4x fewer terms than the dense conv.
//
// The fused op computes out[b, o] = relu(max_t conv[b, o, t]) and keeps only the argmax t per
// (b, o): the (B, O, L_out) activation map never reaches memory, and the backward pass is a
// scatter into the argmax window.
//
// Shapes: codes (B, L) uint8; x (B, C, L); w (O, C, K) with C = 4 for codes; bias (O) or null;
// conv out (B, O, L_out); fused out and argmax (B, O).
#pragma once

#include <cstdint>

#include "kernels/conv1d_geometry.h"

namespace strand::kernels::cpu {

/// Oracle: expands the codes to one-hot and runs the dense reference conv.
template <typename T>
void conv1d_onehot_forward_reference(const Conv1DGeometry& g, const uint8_t* codes, const T* w,
                                     const T* bias, T* out);
/// relu: out = max(conv + bias, 0) (a fused ReLU), written in the same pass.
template <typename T>
void conv1d_onehot_forward(const Conv1DGeometry& g, const uint8_t* codes, const T* w, const T* bias,
                           T* out, bool relu = false);
/// grad_w (O, 4, K), overwritten: grad_w[o, base, k] += grad_out[b, o, t].
template <typename T>
void conv1d_onehot_backward_weight(const Conv1DGeometry& g, const T* grad_out, const uint8_t* codes,
                                   T* grad_w);

/// Oracle for the fused op over codes: dense reference conv of the one-hot input, relu, max.
template <typename T>
void conv1d_relu_max_onehot_reference(const Conv1DGeometry& g, const uint8_t* codes, const T* w,
                                      const T* bias, T* out, int64_t* argmax);
template <typename T>
void conv1d_relu_max_onehot(const Conv1DGeometry& g, const uint8_t* codes, const T* w,
                            const T* bias, T* out, int64_t* argmax);
/// Oracle for the fused op over dense input.
template <typename T>
void conv1d_relu_max_dense_reference(const Conv1DGeometry& g, const T* x, const T* w, const T* bias,
                                     T* out, int64_t* argmax);
template <typename T>
void conv1d_relu_max_dense(const Conv1DGeometry& g, const T* x, const T* w, const T* bias, T* out,
                           int64_t* argmax);

/// Backward of the fused op. Only (b, o) with out > 0 carry gradient, through the window at
/// argmax. grad_w (O, C, K) and grad_bias (O, or null) are overwritten; for dense input,
/// grad_x (B, C, L, or null) is overwritten. codes != null selects the one-hot form (x unused).
template <typename T>
void conv1d_relu_max_backward(const Conv1DGeometry& g, const T* grad_out, const uint8_t* codes,
                              const T* x, const T* w, const T* out, const int64_t* argmax,
                              T* grad_x, T* grad_w, T* grad_bias);

}  // namespace strand::kernels::cpu
