// Runs a template lambda with the C++ type of a runtime DType:
//   dispatch_floating(x.dtype(), "conv1d", [&]<typename T>() { kernel<T>(...); });
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/error.h"

namespace strand {

template <typename F>
decltype(auto) dispatch_floating(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f.template operator()<float>();
    case DType::kFloat64:
      return f.template operator()<double>();
    default:
      throw Error(
          fmt::format("{}: expected a float32 or float64 tensor, got {}", op, dtype_name(dtype)));
  }
}

template <typename F>
decltype(auto) dispatch_any(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f.template operator()<float>();
    case DType::kFloat64:
      return f.template operator()<double>();
    case DType::kUInt8:
      return f.template operator()<uint8_t>();
    case DType::kInt32:
      return f.template operator()<int32_t>();
    case DType::kInt64:
      return f.template operator()<int64_t>();
  }
  throw Error("unknown dtype");
}

}  // namespace strand
