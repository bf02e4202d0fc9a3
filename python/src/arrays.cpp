// numpy and DLPack views of strand memory, and strand Tensors over Python memory.
#include "arrays.h"

#include <fmt/format.h>

#include "app/config_error.h"

namespace nb = nanobind;

namespace strand::python {

DType strand_dtype(nb::dlpack::dtype dtype, const std::string& what) {
  if (dtype == nb::dtype<float>()) return DType::kFloat32;
  if (dtype == nb::dtype<double>()) return DType::kFloat64;
  if (dtype == nb::dtype<uint8_t>()) return DType::kUInt8;
  if (dtype == nb::dtype<int32_t>()) return DType::kInt32;
  if (dtype == nb::dtype<int64_t>()) return DType::kInt64;
  throw app::ConfigError(
      fmt::format("{}: dtype {} has no strand counterpart (float32, float64, uint8, int32, int64)",
                  what, dtype_text(dtype)));
}

nb::dlpack::dtype dlpack_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return nb::dtype<float>();
    case DType::kFloat64:
      return nb::dtype<double>();
    case DType::kUInt8:
      return nb::dtype<uint8_t>();
    case DType::kInt32:
      return nb::dtype<int32_t>();
    case DType::kInt64:
      return nb::dtype<int64_t>();
  }
  return nb::dtype<float>();
}

std::string dtype_text(nb::dlpack::dtype dtype) {
  const char* kind = "?";
  switch (static_cast<nb::dlpack::dtype_code>(dtype.code)) {
    case nb::dlpack::dtype_code::Int:
      kind = "int";
      break;
    case nb::dlpack::dtype_code::UInt:
      kind = "uint";
      break;
    case nb::dlpack::dtype_code::Float:
      kind = "float";
      break;
    case nb::dlpack::dtype_code::Bfloat:
      kind = "bfloat";
      break;
    case nb::dlpack::dtype_code::Complex:
      kind = "complex";
      break;
    case nb::dlpack::dtype_code::Bool:
      return "bool";
    default:
      break;
  }
  return fmt::format("{}{}", kind, dtype.bits);
}

std::string shape_text(const AnyArray& array) {
  std::string text = "(";
  for (size_t i = 0; i < array.ndim(); ++i) {
    text += fmt::format("{}{}", i > 0 ? ", " : "", array.shape(i));
  }
  return text + (array.ndim() == 1 ? ",)" : ")");
}

bool is_c_contiguous(const AnyArray& array) {
  if (array.size() == 0) return true;  // nothing to read: any strides will do
  int64_t expected = 1;
  for (size_t i = array.ndim(); i-- > 0;) {
    if (array.shape(i) != 1 && array.stride(i) != expected) return false;
    expected *= static_cast<int64_t>(array.shape(i));
  }
  return true;
}

void require_contiguous_cpu(const AnyArray& array, const std::string& what) {
  if (array.device_type() != nb::device::cpu::value) {
    throw app::ConfigError(
        fmt::format("{}: expected an array in host memory (a numpy array or a "
                    "CPU tensor), got one on device type {}",
                    what, array.device_type()));
  }
  if (!is_c_contiguous(array)) {
    throw app::ConfigError(
        fmt::format("{}: the array {} is not C-contiguous (a strided view or a transpose); pass "
                    "numpy.ascontiguousarray(x) or x.contiguous()",
                    what, shape_text(array)));
  }
}

nb::object numpy_view(void* data, const std::vector<int64_t>& shape, DType dtype,
                      std::shared_ptr<void> owner) {
  auto* keep = new std::shared_ptr<void>(std::move(owner));
  nb::capsule capsule(keep,
                      [](void* p) noexcept { delete static_cast<std::shared_ptr<void>*>(p); });
  std::vector<size_t> sizes(shape.begin(), shape.end());
  nb::ndarray<nb::numpy> array(data, sizes.size(), sizes.data(), capsule, nullptr,
                               dlpack_dtype(dtype));
  return nb::cast(array, nb::rv_policy::reference);
}

nb::object new_float_array(const std::vector<int64_t>& shape, float** data) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  auto buffer = std::shared_ptr<float[]>(new float[static_cast<size_t>(count > 0 ? count : 1)]);
  *data = buffer.get();
  return numpy_view(buffer.get(), shape, DType::kFloat32,
                    std::shared_ptr<void>(buffer, buffer.get()));
}

Tensor tensor_from_array(const AnyArray& array, nb::handle owner) {
  const DType dtype = strand_dtype(array.dtype(), "Tensor");
  Shape shape;
  Strides strides;
  for (size_t i = 0; i < array.ndim(); ++i) {
    shape.push_back(static_cast<int64_t>(array.shape(i)));
    strides.push_back(array.stride(i));
  }
  Device device = Device::cpu();
  if (array.device_type() == nb::device::cuda::value) {
    device = Device::cuda(array.device_id());
  } else if (array.device_type() != nb::device::cpu::value) {
    throw app::ConfigError(
        fmt::format("Tensor: arrays on device type {} are not supported (cpu, "
                    "cuda)",
                    array.device_type()));
  }
  // The storage spans the elements the strides reach (no negative strides in DLPack views that
  // strand accepts).
  int64_t span = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (strides[i] < 0) {
      throw app::ConfigError("Tensor: arrays with negative strides are not supported; copy first");
    }
    if (shape[i] == 0) span = 0;
    if (span > 0) span += (shape[i] - 1) * strides[i];
  }
  owner.inc_ref();
  PyObject* held = owner.ptr();
  // The release may run on any thread (a Tensor dies where its last view does).
  auto release = [held](void*) {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    Py_DECREF(held);
  };
  Tensor base = Tensor::from_blob(const_cast<void*>(static_cast<const void*>(array.data())), {span},
                                  dtype, device, release);
  return base.as_strided(shape, strides, 0);
}

}  // namespace strand::python
