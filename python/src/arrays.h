// Moving arrays between numpy/DLPack and strand without copies: numpy views of memory that
// strand owns (the owner travels in a capsule), strand Tensors over memory that Python owns,
// and the checks that turn a wrong dtype, shape or layout into a clear exception.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "tensor/tensor.h"

namespace strand::python {

/// Any array-like that nanobind can see without a copy (numpy, torch, DLPack capsules).
using AnyArray = nanobind::ndarray<nanobind::ro>;

/// The strand dtype of a DLPack dtype; throws ConfigError naming `what` for one strand lacks.
DType strand_dtype(nanobind::dlpack::dtype dtype, const std::string& what);

/// The DLPack dtype of a strand dtype.
nanobind::dlpack::dtype dlpack_dtype(DType dtype);

/// "float64", "int16", ... for messages.
std::string dtype_text(nanobind::dlpack::dtype dtype);

/// "(2, 3, 100)" for messages.
std::string shape_text(const AnyArray& array);

/// Whether `array` is row-major contiguous (strides in elements).
bool is_c_contiguous(const AnyArray& array);

/// Throws ConfigError naming `what` unless `array` is C-contiguous and on the CPU.
void require_contiguous_cpu(const AnyArray& array, const std::string& what);

/// A numpy array of `shape` and `dtype` over `data`, kept alive by `owner` (any shared
/// pointer: a batch's storage, a vector of results).
nanobind::object numpy_view(void* data, const std::vector<int64_t>& shape, DType dtype,
                            std::shared_ptr<void> owner);

/// A numpy array that owns a new float32 buffer of `shape`; `data` receives its first element.
nanobind::object new_float_array(const std::vector<int64_t>& shape, float** data);

/// A strand Tensor over the memory of `array` (no copy); it holds a reference to the Python
/// object until its last view dies.
Tensor tensor_from_array(const AnyArray& array, nanobind::handle owner);

}  // namespace strand::python
