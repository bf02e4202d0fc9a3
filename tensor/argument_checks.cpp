// Argument checks every op shares.
#include "tensor/argument_checks.h"

namespace strand::ops {

void check_defined(const char* op, const Tensor& t) {
  STRAND_CHECK(t.defined(), "{}: undefined tensor argument", op);
}

void check_floating(const char* op, const Tensor& t) {
  check_defined(op, t);
  STRAND_CHECK(is_floating(t.dtype()), "{}: expected a float32 or float64 tensor, got {}", op,
               t.describe());
}

void check_same_shape(const char* op, const Tensor& a, const Tensor& b) {
  STRAND_CHECK(a.shape() == b.shape(), "{}: shape mismatch: {} and {}", op, a.describe(),
               b.describe());
}

void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  STRAND_CHECK(a.device() == b.device(), "{}: tensors are on different devices: {} and {}", op,
               a.describe(), b.describe());
}

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  STRAND_CHECK(a.dtype() == b.dtype(), "{}: dtype mismatch: {} and {}", op, a.describe(),
               b.describe());
}

void check_rank(const char* op, const char* name, const Tensor& t, int64_t rank) {
  STRAND_CHECK(t.defined(), "{}: {} is undefined", op, name);
  STRAND_CHECK(t.dim() == rank, "{}: {} must have {} dimensions, got {}", op, name, rank,
               t.describe());
}

}  // namespace strand::ops
