// Test helpers: reading TensorBoard event files back (TFRecord frames with their CRCs, and the
// scalar Events inside them), independently of the writer's own encoder.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "io/crc32c.h"
#include "io/tfrecord.h"

namespace strand::test {

/// The bytes of a file.
inline std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

/// `num_bytes` little-endian bytes at `at` as an integer.
inline std::uint64_t read_le(const std::vector<std::byte>& data, std::size_t at, int num_bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < num_bytes; ++i) {
    v |= static_cast<std::uint64_t>(data.at(at + i)) << (8 * i);
  }
  return v;
}

/// Lower-case hex of `bytes`, two digits each ("0a1b").
inline std::string to_hex(std::span<const std::byte> bytes) {
  std::string out;
  for (std::byte b : bytes) {
    char buf[3];
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned>(b));
    out += buf;
  }
  return out;
}

/// Splits a TFRecord stream into payloads, checking every length and CRC.
inline std::vector<std::vector<std::byte>> read_tfrecords(const std::vector<std::byte>& data) {
  std::vector<std::vector<std::byte>> records;
  std::size_t at = 0;
  while (at < data.size()) {
    REQUIRE(at + 12 <= data.size());
    const auto len = read_le(data, at, 8);
    const auto len_crc = static_cast<std::uint32_t>(read_le(data, at + 8, 4));
    CHECK(len_crc == io::mask_crc32c(io::crc32c(std::span(data).subspan(at, 8))));
    REQUIRE(at + 12 + len + 4 <= data.size());
    const auto payload = std::span(data).subspan(at + 12, len);
    const auto data_crc = static_cast<std::uint32_t>(read_le(data, at + 12 + len, 4));
    CHECK(data_crc == io::mask_crc32c(io::crc32c(payload)));
    records.emplace_back(payload.begin(), payload.end());
    at += 12 + len + 4;
  }
  return records;
}

/// One protobuf field of a message: its number, and its varint, fixed or length-delimited
/// value.
struct ProtobufField {
  std::uint32_t number = 0;
  std::uint64_t integer = 0;         // varint, fixed32 or fixed64 bits
  std::span<const std::byte> bytes;  // length-delimited
};

/// The fields of a protobuf message, in order (wire types 0, 1, 2 and 5).
inline std::vector<ProtobufField> protobuf_fields(std::span<const std::byte> message) {
  std::vector<ProtobufField> fields;
  std::size_t at = 0;
  const auto varint = [&] {
    std::uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      REQUIRE(at < message.size());
      const auto byte = static_cast<std::uint64_t>(message[at++]);
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
  };
  while (at < message.size()) {
    const std::uint64_t key = varint();
    ProtobufField field;
    field.number = static_cast<std::uint32_t>(key >> 3);
    switch (key & 7) {
      case 0:
        field.integer = varint();
        break;
      case 1:
      case 5: {
        const std::size_t width = (key & 7) == 1 ? 8 : 4;
        REQUIRE(at + width <= message.size());
        for (std::size_t i = 0; i < width; ++i) {
          field.integer |= static_cast<std::uint64_t>(message[at + i]) << (8 * i);
        }
        at += width;
        break;
      }
      case 2: {
        const auto length = static_cast<std::size_t>(varint());
        REQUIRE(at + length <= message.size());
        field.bytes = message.subspan(at, length);
        at += length;
        break;
      }
      default:
        FAIL("unexpected protobuf wire type " << (key & 7));
    }
    fields.push_back(field);
  }
  return fields;
}

/// A run directory's scalars: tag -> step -> value (the last one written at a step).
using RunScalars = std::map<std::string, std::map<std::int64_t, float>>;

/// Every scalar of the event files in `run_dir` (Event field 2 step, 5 summary; Summary field
/// 1 value; Value field 1 tag, 2 simple_value), checking each file starts with its version
/// record.
inline RunScalars read_run_scalars(const std::filesystem::path& run_dir) {
  RunScalars scalars;
  for (const auto& entry : std::filesystem::directory_iterator(run_dir)) {
    REQUIRE(entry.path().filename().string().starts_with("events.out.tfevents."));
    const auto records = read_tfrecords(read_bytes(entry.path()));
    REQUIRE(!records.empty());
    const std::string version(reinterpret_cast<const char*>(records[0].data()), records[0].size());
    CHECK(version.ends_with("brain.Event:2"));
    for (std::size_t r = 1; r < records.size(); ++r) {
      std::int64_t step = 0;
      for (const ProtobufField& event : protobuf_fields(records[r])) {
        if (event.number == 2) step = static_cast<std::int64_t>(event.integer);
        if (event.number != 5) continue;
        for (const ProtobufField& summary : protobuf_fields(event.bytes)) {
          std::string tag;
          float value = 0.0f;
          for (const ProtobufField& field : protobuf_fields(summary.bytes)) {
            if (field.number == 1) {
              tag.assign(reinterpret_cast<const char*>(field.bytes.data()), field.bytes.size());
            } else if (field.number == 2) {
              const auto bits = static_cast<std::uint32_t>(field.integer);
              std::memcpy(&value, &bits, sizeof value);
            }
          }
          scalars[tag][step] = value;
        }
      }
    }
  }
  return scalars;
}

}  // namespace strand::test
