// Argument checks every op shares. Each throws strand::Error naming the op and describing the
// tensors that disagree ("matmul: dtype mismatch: float32 (2, 3) cpu and float64 (3, 4) cpu").
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace strand::ops {

void check_defined(const char* op, const Tensor& t);
/// Defined and float32 or float64.
void check_floating(const char* op, const Tensor& t);
void check_same_shape(const char* op, const Tensor& a, const Tensor& b);
void check_same_device(const char* op, const Tensor& a, const Tensor& b);
void check_same_dtype(const char* op, const Tensor& a, const Tensor& b);
/// Defined and of `rank` dimensions; `name` says which argument ("weight (O, C, K)").
void check_rank(const char* op, const char* name, const Tensor& t, int64_t rank);

}  // namespace strand::ops
