// Dense Conv1D CPU kernels (cross-correlation, as in PyTorch/Keras): readable oracles and fast
// OpenMP versions. All tensors contiguous:
//   x: (B, C, L), w: (O, C, K), bias: (O) or null, out / grad_out: (B, O, L_out).
#pragma once

#include "kernels/cpu/conv1d_geometry.h"

namespace strand::kernels::cpu {

template <typename T>
void conv1d_forward_reference(const Conv1DGeometry& g, const T* x, const T* w, const T* bias,
                              T* out);
template <typename T>
void conv1d_forward(const Conv1DGeometry& g, const T* x, const T* w, const T* bias, T* out);

// grad_x: (B, C, L), overwritten.
template <typename T>
void conv1d_backward_input_reference(const Conv1DGeometry& g, const T* grad_out, const T* w,
                                     T* grad_x);
template <typename T>
void conv1d_backward_input(const Conv1DGeometry& g, const T* grad_out, const T* w, T* grad_x);

// grad_w: (O, C, K), overwritten.
template <typename T>
void conv1d_backward_weight_reference(const Conv1DGeometry& g, const T* grad_out, const T* x,
                                      T* grad_w);
template <typename T>
void conv1d_backward_weight(const Conv1DGeometry& g, const T* grad_out, const T* x, T* grad_w);

}  // namespace strand::kernels::cpu
