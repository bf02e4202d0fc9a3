// Reading and writing the safetensors checkpoint format on plain byte buffers.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace strand::io {

/// One tensor: name, dtype ("F32", "F64", "U8", "I32", "I64"), shape and its little-endian
/// bytes in row-major order.
struct SafetensorsEntry {
  /// The tensor's name, unique in its file.
  std::string name;
  /// "F32", "F64", "U8", "I32" or "I64".
  std::string dtype;
  /// Dimensions, outermost first.
  std::vector<std::int64_t> shape;
  /// Little-endian element bytes in row-major order.
  std::vector<std::byte> data;
};

/// The contents of a safetensors file: tensors in file (data offset) order plus the
/// "__metadata__" string map.
struct SafetensorsFile {
  /// The tensors in data offset order.
  std::vector<SafetensorsEntry> entries;
  /// The "__metadata__" map (empty when the file has none).
  std::map<std::string, std::string> metadata;

  /// The entry called `name`; throws std::out_of_range naming it when absent.
  [[nodiscard]] const SafetensorsEntry& at(std::string_view name) const;
};

/// Bytes per element of a supported dtype; throws std::invalid_argument for any other string.
[[nodiscard]] std::size_t safetensors_dtype_size(std::string_view dtype);

/// Serialises to the safetensors layout: u64 LE header length N, N bytes of JSON header padded
/// with spaces to a multiple of 8, then the tensors' bytes back to back in the given order.
/// Validates names (non-empty, unique, not "__metadata__"), dtypes and data sizes.
[[nodiscard]] std::vector<std::byte> encode_safetensors(
    std::span<const SafetensorsEntry> entries,
    const std::map<std::string, std::string>& metadata = {});

/// Parses and fully validates safetensors bytes. `source` names the origin (file path) in error
/// messages. Rejects: short input, header length beyond the input, invalid JSON or UTF-8,
/// empty or duplicate tensor names, unknown dtypes, negative dims, offsets that are out of range,
/// overlapping, leave gaps, or disagree with shape x dtype size, non-string metadata.
[[nodiscard]] SafetensorsFile decode_safetensors(std::span<const std::byte> bytes,
                                                 std::string_view source = "<memory>");

/// encode_safetensors() written atomically (temp file in the same directory, fsync, rename).
void write_safetensors(const std::filesystem::path& path, std::span<const SafetensorsEntry> entries,
                       const std::map<std::string, std::string>& metadata = {});

/// Reads a whole file and decode_safetensors() it; errors name the file.
[[nodiscard]] SafetensorsFile read_safetensors(const std::filesystem::path& path);

/// The safetensors dtype string of an arithmetic C++ type (float -> "F32", ...).
template <typename T>
constexpr std::string_view safetensors_dtype_of() {
  if constexpr (std::is_same_v<T, float>) {
    return "F32";
  } else if constexpr (std::is_same_v<T, double>) {
    return "F64";
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    return "U8";
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return "I32";
  } else {
    static_assert(std::is_same_v<T, std::int64_t>, "unsupported safetensors element type");
    return "I64";
  }
}

/// Builds an entry from typed values (stored little-endian whatever the host byte order).
template <typename T>
SafetensorsEntry make_safetensors_entry(std::string name, std::vector<std::int64_t> shape,
                                        std::span<const T> values) {
  SafetensorsEntry e{std::move(name), std::string(safetensors_dtype_of<T>()), std::move(shape),
                     std::vector<std::byte>(values.size() * sizeof(T))};
  // Empty tensors may have null data pointers, which memcpy must never see.
  if (!e.data.empty()) std::memcpy(e.data.data(), values.data(), e.data.size());
  if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) {
    for (std::size_t i = 0; i < e.data.size(); i += sizeof(T)) {
      std::reverse(e.data.begin() + i, e.data.begin() + i + sizeof(T));
    }
  }
  return e;
}

/// Decodes an entry's bytes as T; throws std::invalid_argument if the dtype is not T's.
template <typename T>
std::vector<T> safetensors_values(const SafetensorsEntry& entry) {
  if (entry.dtype != safetensors_dtype_of<T>()) {
    throw std::invalid_argument("safetensors tensor '" + entry.name + "' has dtype " + entry.dtype +
                                ", requested " + std::string(safetensors_dtype_of<T>()));
  }
  std::vector<std::byte> bytes = entry.data;
  if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) {
    for (std::size_t i = 0; i < bytes.size(); i += sizeof(T)) {
      std::reverse(bytes.begin() + i, bytes.begin() + i + sizeof(T));
    }
  }
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

}  // namespace strand::io
