// Minimal protocol-buffer wire-format encoder (just what TensorBoard events need).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace strand::io {

/// Appends protobuf fields in wire format to a byte buffer. Nested messages are encoded
/// separately and added with add_message().
class ProtobufEncoder {
 public:
  /// `double` field (wire type 1, fixed64).
  void add_double(std::uint32_t field, double value);
  /// `float` field (wire type 5, fixed32).
  void add_float(std::uint32_t field, float value);
  /// `int64` field (wire type 0, varint; negatives take 10 bytes, as protobuf specifies).
  void add_int64(std::uint32_t field, std::int64_t value);
  /// `string` / `bytes` field (wire type 2).
  void add_string(std::uint32_t field, std::string_view value);
  /// Embedded message field (wire type 2) holding an already-encoded message.
  void add_message(std::uint32_t field, std::span<const std::byte> encoded);

  /// The encoded bytes so far.
  [[nodiscard]] const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  void add_varint(std::uint64_t value);
  void add_tag(std::uint32_t field, std::uint32_t wire_type);
  void add_fixed(std::uint64_t value, int num_bytes);

  std::vector<std::byte> bytes_;
};

}  // namespace strand::io
