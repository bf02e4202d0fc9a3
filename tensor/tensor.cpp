// Tensor creation, views and copies.
#include "tensor/tensor.h"

#include <algorithm>

#include "tensor/primitive_ops.h"

namespace strand {

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  for (int64_t extent : shape) {
    STRAND_CHECK(extent >= 0, "empty: negative extent in shape {}", shape_to_string(shape));
  }
  Tensor tensor;
  tensor.storage_ = std::make_shared<Storage>(
      static_cast<size_t>(strand::numel(shape)) * dtype_size(dtype), device);
  tensor.shape_ = shape;
  tensor.strides_ = contiguous_strides(shape);
  tensor.dtype_ = dtype;
  return tensor;
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, Device device) {
  return full(shape, 0.0, dtype, device);
}

Tensor Tensor::ones(const Shape& shape, DType dtype, Device device) {
  return full(shape, 1.0, dtype, device);
}

Tensor Tensor::full(const Shape& shape, double value, DType dtype, Device device) {
  Tensor tensor = empty(shape, dtype, device);
  tensor.fill_(value);
  return tensor;
}

namespace {
// Draws on the host in row-major order (so results do not depend on the device), then moves.
template <typename Draw>
Tensor random_tensor(const Shape& shape, DType dtype, Device device, Draw draw) {
  STRAND_CHECK(is_floating(dtype), "random tensors must be float32 or float64, got {}",
               dtype_name(dtype));
  std::vector<double> values(static_cast<size_t>(strand::numel(shape)));
  for (double& value : values) value = draw();
  return Tensor::from_vector(values, shape).to(dtype).to(device);
}
}  // namespace

Tensor Tensor::uniform(const Shape& shape, double low, double high, Generator& generator,
                       DType dtype, Device device) {
  return random_tensor(shape, dtype, device,
                       [&] { return low + (high - low) * generator.next_double(); });
}

Tensor Tensor::normal(const Shape& shape, double mean, double stddev, Generator& generator,
                      DType dtype, Device device) {
  return random_tensor(shape, dtype, device,
                       [&] { return mean + stddev * generator.next_normal(); });
}

Tensor Tensor::from_blob(void* data, const Shape& shape, DType dtype, Device device,
                         std::function<void(void*)> release) {
  Tensor tensor;
  tensor.storage_ =
      std::make_shared<Storage>(data, static_cast<size_t>(strand::numel(shape)) * dtype_size(dtype),
                                device, std::move(release));
  tensor.shape_ = shape;
  tensor.strides_ = contiguous_strides(shape);
  tensor.dtype_ = dtype;
  return tensor;
}

int64_t Tensor::size(int64_t dim) const { return shape_[normalize_dim(dim, this->dim(), "size")]; }

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

std::string Tensor::describe() const {
  if (!defined()) return "undefined tensor";
  return fmt::format("{} {} on {}", dtype_name(dtype_), shape_to_string(shape_),
                     device().to_string());
}

void* Tensor::raw_data() const {
  STRAND_CHECK(defined(), "raw_data() on an undefined tensor");
  return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(dtype_size(dtype_));
}

double Tensor::item() const {
  STRAND_CHECK(numel() == 1, "item(): tensor {} has {} elements, expected 1", describe(), numel());
  return to(Device::cpu()).to(DType::kFloat64).data<double>()[0];
}

Tensor Tensor::reshape(Shape shape) const {
  int64_t known = 1;
  int64_t inferred_dim = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      STRAND_CHECK(inferred_dim < 0, "reshape {} to {}: more than one -1", describe(),
                   shape_to_string(shape));
      inferred_dim = static_cast<int64_t>(i);
    } else {
      known *= shape[i];
    }
  }
  if (inferred_dim >= 0) {
    STRAND_CHECK(known > 0 && numel() % known == 0, "reshape {} to {}: sizes do not divide",
                 describe(), shape_to_string(shape));
    shape[inferred_dim] = numel() / known;
  }
  STRAND_CHECK(strand::numel(shape) == numel(), "reshape {} to {}: {} elements vs {}", describe(),
               shape_to_string(shape), numel(), strand::numel(shape));
  Tensor source = contiguous();
  Tensor view = source;
  view.shape_ = shape;
  view.strides_ = contiguous_strides(shape);
  return view;
}

Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end, int64_t step) const {
  dim = normalize_dim(dim, this->dim(), "slice");
  const int64_t extent = shape_[dim];
  STRAND_CHECK(step > 0, "slice: step must be positive, got {}", step);
  if (start < 0) start += extent;
  if (end < 0) end += extent;
  start = std::clamp<int64_t>(start, 0, extent);
  end = std::clamp<int64_t>(end, start, extent);
  Tensor view = *this;
  view.offset_ += start * strides_[dim];
  view.shape_[dim] = (end - start + step - 1) / step;
  view.strides_[dim] *= step;
  return view;
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  dim0 = normalize_dim(dim0, dim(), "transpose");
  dim1 = normalize_dim(dim1, dim(), "transpose");
  Tensor view = *this;
  std::swap(view.shape_[dim0], view.shape_[dim1]);
  std::swap(view.strides_[dim0], view.strides_[dim1]);
  return view;
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  dim = normalize_dim(dim, this->dim() + 1, "unsqueeze");
  Tensor view = *this;
  const int64_t stride = dim < this->dim() ? strides_[dim] * shape_[dim] : 1;
  view.shape_.insert(view.shape_.begin() + dim, 1);
  view.strides_.insert(view.strides_.begin() + dim, stride);
  return view;
}

Tensor Tensor::squeeze(int64_t dim) const {
  dim = normalize_dim(dim, this->dim(), "squeeze");
  STRAND_CHECK(shape_[dim] == 1, "squeeze: dimension {} of {} has extent {}, expected 1", dim,
               describe(), shape_[dim]);
  Tensor view = *this;
  view.shape_.erase(view.shape_.begin() + dim);
  view.strides_.erase(view.strides_.begin() + dim);
  return view;
}

Tensor Tensor::expand(const Shape& shape) const {
  STRAND_CHECK(static_cast<int64_t>(shape.size()) >= dim(), "expand {} to {}: fewer dimensions",
               describe(), shape_to_string(shape));
  const size_t lead = shape.size() - shape_.size();
  Tensor view = *this;
  view.shape_ = shape;
  view.strides_.assign(shape.size(), 0);
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == shape[lead + i]) {
      view.strides_[lead + i] = strides_[i];
    } else {
      STRAND_CHECK(shape_[i] == 1, "expand {} to {}: dimension {} has extent {}, not 1", describe(),
                   shape_to_string(shape), i, shape_[i]);
    }
  }
  return view;
}

Tensor Tensor::as_strided(const Shape& shape, const Strides& strides, int64_t offset) const {
  STRAND_CHECK(shape.size() == strides.size(), "as_strided: {} extents but {} strides",
               shape.size(), strides.size());
  int64_t last = offset;
  for (size_t i = 0; i < shape.size(); ++i) {
    STRAND_CHECK(strides[i] >= 0, "as_strided: negative stride");
    if (shape[i] == 0) last = offset - 1;
    if (shape[i] > 0) last += (shape[i] - 1) * strides[i];
  }
  const int64_t capacity = static_cast<int64_t>(storage_->nbytes() / dtype_size(dtype_));
  STRAND_CHECK(offset >= 0 && last < capacity,
               "as_strided: view reaches element {} of a storage of {} elements", last, capacity);
  Tensor view = *this;
  view.shape_ = shape;
  view.strides_ = strides;
  view.offset_ = offset;
  return view;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  Tensor copy = empty(shape_, dtype_, device());
  copy.copy_(*this);
  return copy;
}

Tensor Tensor::to(Device target) const {
  if (target == device()) return *this;
  Tensor moved = empty(shape_, dtype_, target);
  moved.copy_(*this);
  return moved;
}

Tensor Tensor::to(DType target) const {
  if (target == dtype_) return *this;
  Tensor converted = empty(shape_, target, device());
  converted.copy_(*this);
  return converted;
}

Tensor& Tensor::copy_(const Tensor& source) {
  STRAND_CHECK(defined() && source.defined(), "copy_: undefined tensor");
  STRAND_CHECK(shape_ == source.shape_, "copy_: destination {} and source {} differ in shape",
               describe(), source.describe());
  // Cross-device copies run on the accelerator's kernel, which knows both sides.
  const Device kernel_device = device().is_cpu() ? source.device() : device();
  dispatch<CopyOp>(kernel_device, *this, source);
  return *this;
}

Tensor& Tensor::add_(const Tensor& addend) {
  STRAND_CHECK(defined() && addend.defined(), "add_: undefined tensor");
  STRAND_CHECK(shape_ == addend.shape_, "add_: shape mismatch: {} and {}", describe(),
               addend.describe());
  STRAND_CHECK(dtype_ == addend.dtype_ && is_floating(dtype_),
               "add_: expected two float tensors of one dtype, got {} and {}", describe(),
               addend.describe());
  STRAND_CHECK(device() == addend.device(), "add_: tensors are on different devices: {} and {}",
               describe(), addend.describe());
  dispatch<AccumulateOp>(device(), *this, addend);
  return *this;
}

Tensor& Tensor::fill_(double value) {
  STRAND_CHECK(defined(), "fill_: undefined tensor");
  dispatch<FillOp>(device(), *this, value);
  return *this;
}

}  // namespace strand
