// 1-D pooling CPU kernels: max (with the first argmax of each window) and average, forward and
// backward. The loops are the readable definitions and fast enough (one pass over the input,
// rows split across threads), so each is its own oracle. All tensors contiguous:
//   x, grad_x: (rows, L); out, argmax, grad_out: (rows, L_out). argmax holds positions in the row.
#pragma once

#include <cstdint>

#include "kernels/pool1d_geometry.h"

namespace strand::kernels::cpu {

template <typename T>
void max_pool1d_forward(const Pool1DGeometry& g, const T* x, T* out, int64_t* argmax);
/// grad_x overwritten: each output's gradient goes to its window's argmax.
template <typename T>
void max_pool1d_backward(const Pool1DGeometry& g, const T* grad_out, const int64_t* argmax,
                         T* grad_x);
/// The mean of each window (a window cut short by ceil_mode averages what it holds).
template <typename T>
void avg_pool1d_forward(const Pool1DGeometry& g, const T* x, T* out);
/// grad_x overwritten: each output's gradient spread evenly over its window.
template <typename T>
void avg_pool1d_backward(const Pool1DGeometry& g, const T* grad_out, T* grad_x);

}  // namespace strand::kernels::cpu
