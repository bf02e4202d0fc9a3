// 1-D pooling CPU kernels: max (with the first argmax of each window; a NaN wins, as in PyTorch)
// and average, forward and backward. All tensors contiguous:
//   x, grad_x: (rows, L); out, argmax, grad_out: (rows, L_out). argmax holds positions in the row.
// The fast forward passes vectorise across output positions (16 windows at a time with AVX-512
// gathers, 8 with AVX2's, float32); the backward passes are the oracles' loops split across threads
// (a fill and a scatter, bound by memory). The *_reference versions are the readable loops, one
// window at a time, and the oracles of tests/kernels.
#pragma once

#include <cstdint>

#include "kernels/pooling_geometry.h"

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

template <typename T>
void max_pool1d_forward_reference(const Pool1DGeometry& g, const T* x, T* out, int64_t* argmax);
template <typename T>
void max_pool1d_backward_reference(const Pool1DGeometry& g, const T* grad_out,
                                   const int64_t* argmax, T* grad_x);
template <typename T>
void avg_pool1d_forward_reference(const Pool1DGeometry& g, const T* x, T* out);
template <typename T>
void avg_pool1d_backward_reference(const Pool1DGeometry& g, const T* grad_out, T* grad_x);

}  // namespace strand::kernels::cpu
