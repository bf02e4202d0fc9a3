// Elementwise CPU kernels over strided operands: unary maps, broadcast binary maps, fill,
// copy-with-conversion, and the pointwise backward rules of ReLU and sigmoid.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {

/// out[i] = f(x[i]) over `shape` (rank extents); each operand has its own strides.
template <typename Out, typename In, typename F>
void map_unary(int rank, const int64_t* shape, const In* x, const int64_t* x_strides, Out* out,
               const int64_t* out_strides, F f) {
  for_each_row<2>(rank, shape, {x_strides, out_strides},
                  [&](const auto& offsets, const auto& inner, int64_t count) {
                    const In* xs = x + offsets[0];
                    Out* os = out + offsets[1];
                    if (inner[0] == 1 && inner[1] == 1) {
                      for (int64_t i = 0; i < count; ++i) os[i] = f(xs[i]);
                    } else {
                      for (int64_t i = 0; i < count; ++i) os[i * inner[1]] = f(xs[i * inner[0]]);
                    }
                  });
}

/// out[i] = f(a[i], b[i]); broadcasting is expressed as stride 0 in a or b.
template <typename T, typename F>
void map_binary(int rank, const int64_t* shape, const T* a, const int64_t* a_strides, const T* b,
                const int64_t* b_strides, T* out, const int64_t* out_strides, F f) {
  for_each_row<3>(rank, shape, {a_strides, b_strides, out_strides},
                  [&](const auto& offsets, const auto& inner, int64_t count) {
                    const T* as = a + offsets[0];
                    const T* bs = b + offsets[1];
                    T* os = out + offsets[2];
                    if (inner[0] == 1 && inner[1] == 1 && inner[2] == 1) {
                      for (int64_t i = 0; i < count; ++i) os[i] = f(as[i], bs[i]);
                    } else if (inner[0] == 1 && inner[1] == 0 && inner[2] == 1) {
                      const T scalar = bs[0];
                      for (int64_t i = 0; i < count; ++i) os[i] = f(as[i], scalar);
                    } else {
                      for (int64_t i = 0; i < count; ++i) {
                        os[i * inner[2]] = f(as[i * inner[0]], bs[i * inner[1]]);
                      }
                    }
                  });
}

}  // namespace strand::kernels::cpu
