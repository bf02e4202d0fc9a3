// DType: the element types a Tensor can hold, with their sizes and names, and a
// compile-time mapping between C++ types and DType values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace strand {

/// Element type of a tensor. float64 exists for gradient checks, uint8 for DNA base codes,
/// int32/int64 for indices (e.g. argmax).
enum class DType : uint8_t { kFloat32, kFloat64, kUInt8, kInt32, kInt64 };

/// Bytes per element.
constexpr size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return 4;
    case DType::kFloat64:
      return 8;
    case DType::kUInt8:
      return 1;
    case DType::kInt32:
      return 4;
    case DType::kInt64:
      return 8;
  }
  return 0;
}

/// Lower-case name as used in error messages ("float32").
constexpr std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
  }
  return "unknown";
}

constexpr bool is_floating(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64;
}

/// The DType of a C++ element type: dtype_of<float> == DType::kFloat32.
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kFloat32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kFloat64;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kUInt8;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kInt64;
};
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace strand
