// Protobuf wire-format encoding.
#include "io/protobuf_encoder.h"

#include <bit>

namespace strand::io {

void ProtobufEncoder::add_varint(std::uint64_t value) {
  while (value >= 0x80) {
    bytes_.push_back(static_cast<std::byte>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  bytes_.push_back(static_cast<std::byte>(value));
}

void ProtobufEncoder::add_tag(std::uint32_t field, std::uint32_t wire_type) {
  add_varint((static_cast<std::uint64_t>(field) << 3) | wire_type);
}

void ProtobufEncoder::add_fixed(std::uint64_t value, int num_bytes) {
  for (int i = 0; i < num_bytes; ++i) {
    bytes_.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
  }
}

void ProtobufEncoder::add_double(std::uint32_t field, double value) {
  add_tag(field, 1);
  add_fixed(std::bit_cast<std::uint64_t>(value), 8);
}

void ProtobufEncoder::add_float(std::uint32_t field, float value) {
  add_tag(field, 5);
  add_fixed(std::bit_cast<std::uint32_t>(value), 4);
}

void ProtobufEncoder::add_int64(std::uint32_t field, std::int64_t value) {
  add_tag(field, 0);
  add_varint(static_cast<std::uint64_t>(value));
}

void ProtobufEncoder::add_string(std::uint32_t field, std::string_view value) {
  add_tag(field, 2);
  add_varint(value.size());
  const auto* p = reinterpret_cast<const std::byte*>(value.data());
  bytes_.insert(bytes_.end(), p, p + value.size());
}

void ProtobufEncoder::add_message(std::uint32_t field, std::span<const std::byte> encoded) {
  add_tag(field, 2);
  add_varint(encoded.size());
  bytes_.insert(bytes_.end(), encoded.begin(), encoded.end());
}

}  // namespace strand::io
