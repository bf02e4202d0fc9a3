// Tensor: a typed, strided view of a Storage on a device. Views (reshape of contiguous data,
// slice, transpose, expand) share storage; everything else makes new memory. A Tensor has no
// gradient machinery: autograd/Var wraps one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/error.h"
#include "tensor/generator.h"
#include "tensor/shape.h"
#include "tensor/storage.h"

namespace strand {

class Tensor {
 public:
  /// An undefined tensor (no storage); defined() is false.
  Tensor() = default;

  // ---- Creation ----------------------------------------------------------------------
  static Tensor empty(const Shape& shape, DType dtype = DType::kFloat32,
                      Device device = Device::cpu());
  static Tensor zeros(const Shape& shape, DType dtype = DType::kFloat32,
                      Device device = Device::cpu());
  static Tensor ones(const Shape& shape, DType dtype = DType::kFloat32,
                     Device device = Device::cpu());
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
  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t size(int64_t dim) const;
  int64_t numel() const { return strand::numel(shape_); }
  int64_t offset() const { return offset_; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_ ? storage_->device() : Device::cpu(); }
  bool is_contiguous() const;
  const StoragePtr& storage() const { return storage_; }
  /// "float32 (2, 3) on cpu", for error messages.
  std::string describe() const;

  // ---- Element access ----------------------------------------------------------------
  /// Pointer to the first element (offset applied); checks that T matches dtype().
  template <typename T>
  T* data() const;
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
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze(int64_t dim) const;
  /// Broadcasts size-1 dimensions to `shape` with stride 0 (NumPy rules).
  Tensor expand(const Shape& shape) const;
  /// A view with explicit shape/strides/offset over the same storage (checked to stay
  /// within the storage).
  Tensor as_strided(const Shape& shape, const Strides& strides, int64_t offset) const;

  // ---- Copies ------------------------------------------------------------------------
  /// This tensor if already contiguous, else a contiguous copy.
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(Device device) const;
  Tensor to(DType dtype) const;
  /// Copies `source` (same shape, any dtype/strides/device) into this tensor in place.
  Tensor& copy_(const Tensor& source);
  Tensor& fill_(double value);
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
