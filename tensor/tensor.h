// Tensor: a typed, strided view of a Storage on a device. Views (reshape of contiguous data,
// slice, transpose, expand) share storage; everything else makes new memory. A Tensor has no
// gradient machinery: autograd/Var wraps one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"
#include "tensor/generator.h"
#include "tensor/storage.h"

namespace strand {

/// A typed, strided view of a Storage on a device (no autograd; see Var).
class Tensor {
 public:
  /// An undefined tensor (no storage); defined() is false.
  Tensor() = default;

  // ---- Creation ----------------------------------------------------------------------
  /// A new contiguous tensor with uninitialised elements.
  static Tensor empty(const Shape& shape, DType dtype = DType::kFloat32,
                      Device device = Device::cpu());
  /// A new contiguous tensor of zeros.
  static Tensor zeros(const Shape& shape, DType dtype = DType::kFloat32,
                      Device device = Device::cpu());
  /// A new contiguous tensor of ones.
  static Tensor ones(const Shape& shape, DType dtype = DType::kFloat32,
                     Device device = Device::cpu());
  /// A new contiguous tensor filled with `value`.
  static Tensor full(const Shape& shape, double value, DType dtype = DType::kFloat32,
                     Device device = Device::cpu());
  /// Uniform in [low, high), drawn on the host from `generator` in row-major order.
  static Tensor uniform(const Shape& shape, double low, double high, Generator& generator,
                        DType dtype = DType::kFloat32, Device device = Device::cpu());
  /// Normal(mean, stddev), drawn on the host from `generator` in row-major order.
  static Tensor normal(const Shape& shape, double mean, double stddev, Generator& generator,
                       DType dtype = DType::kFloat32, Device device = Device::cpu());
  /// Copies `values` (row-major) into a new CPU tensor of `shape`.
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, const Shape& shape);
  /// Wraps existing host or device memory without copying; the caller keeps it alive (or
  /// passes `release`, run when the last view dies).
  static Tensor from_blob(void* data, const Shape& shape, DType dtype,
                          Device device = Device::cpu(),
                          std::function<void(void*)> release = nullptr);

  // ---- Properties --------------------------------------------------------------------
  /// False for a default-constructed tensor.
  bool defined() const { return storage_ != nullptr; }
  /// Extents, outermost first.
  const Shape& shape() const { return shape_; }
  /// Element strides, one per dimension.
  const Strides& strides() const { return strides_; }
  /// The rank.
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  /// The extent of dimension `dim` (negative counts from the end).
  int64_t size(int64_t dim) const;
  /// The number of elements.
  int64_t numel() const { return strand::numel(shape_); }
  /// The first element's offset into the storage, in elements.
  int64_t offset() const { return offset_; }
  /// The element type.
  DType dtype() const { return dtype_; }
  /// Where the data lives.
  Device device() const { return storage_ ? storage_->device() : Device::cpu(); }
  /// Whether the strides are the row-major ones for the shape.
  bool is_contiguous() const;
  /// The shared storage.
  const StoragePtr& storage() const { return storage_; }
  /// "float32 (2, 3) on cpu", for error messages.
  std::string describe() const;

  // ---- Element access ----------------------------------------------------------------
  /// Pointer to the first element (offset applied); checks that T matches dtype().
  template <typename T>
  T* data() const;
  /// Pointer to the first element (offset applied), untyped.
  void* raw_data() const;
  /// The single element of a one-element tensor as a double (copies from the device).
  double item() const;
  /// All elements in row-major order (copies from the device, follows strides).
  template <typename T>
  std::vector<T> to_vector() const;

  // ---- Views (share storage) ---------------------------------------------------------
  /// Same data, new shape; a view when contiguous, otherwise a contiguous copy. One
  /// dimension may be -1 (inferred).
  Tensor reshape(Shape shape) const;
  /// Elements start, start+step, ... < end along `dim` (negative start/end count from the
  /// end).
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;
  /// A view with two dimensions swapped.
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  /// A view with a new size-1 dimension at `dim`.
  Tensor unsqueeze(int64_t dim) const;
  /// A view without the size-1 dimension `dim`.
  Tensor squeeze(int64_t dim) const;
  /// Broadcasts size-1 dimensions to `shape` with stride 0 (NumPy rules).
  Tensor expand(const Shape& shape) const;
  /// A view with explicit shape/strides/offset over the same storage (checked to stay
  /// within the storage).
  Tensor as_strided(const Shape& shape, const Strides& strides, int64_t offset) const;

  // ---- Copies ------------------------------------------------------------------------
  /// This tensor if already contiguous, else a contiguous copy.
  Tensor contiguous() const;
  /// A contiguous copy on the same device.
  Tensor clone() const;
  /// A copy on `device` (this tensor when already there).
  Tensor to(Device device) const;
  /// A converted copy (this tensor when already of `dtype`).
  Tensor to(DType dtype) const;
  /// Copies `source` (same shape, any dtype/strides/device) into this tensor in place.
  Tensor& copy_(const Tensor& source);
  /// Adds `addend` (same shape, float dtype and device; any strides) in place: how gradients
  /// and metrics accumulate without allocating.
  Tensor& add_(const Tensor& addend);
  /// Sets every element to `value`, in place.
  Tensor& fill_(double value);
  /// Sets every element to zero, in place.
  Tensor& zero_() { return fill_(0.0); }

 private:
  StoragePtr storage_;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;  // in elements
  DType dtype_ = DType::kFloat32;
};

template <typename T>
T* Tensor::data() const {
  STRAND_CHECK(defined(), "data<{}>() on an undefined tensor", dtype_name(dtype_of<T>));
  STRAND_CHECK(dtype_ == dtype_of<T>, "data<{}>() on a tensor of dtype {}", dtype_name(dtype_of<T>),
               dtype_name(dtype_));
  return static_cast<T*>(storage_->data()) + offset_;
}

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, const Shape& shape) {
  STRAND_CHECK(static_cast<int64_t>(values.size()) == strand::numel(shape),
               "from_vector: {} values do not fill shape {}", values.size(),
               shape_to_string(shape));
  Tensor tensor = empty(shape, dtype_of<T>);
  std::copy(values.begin(), values.end(), tensor.data<T>());
  return tensor;
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  const Tensor host = to(Device::cpu()).contiguous();
  const T* begin = host.data<T>();
  return std::vector<T>(begin, begin + host.numel());
}

}  // namespace strand
