// TFRecord framing implementation.
#include "io/tfrecord.h"

#include <cstdint>

#include "io/crc32c.h"

namespace strand::io {
namespace {

template <typename T>
void append_le(std::vector<std::byte>& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xffu));
  }
}

}  // namespace

std::vector<std::byte> frame_tfrecord(std::span<const std::byte> payload) {
  std::vector<std::byte> out;
  out.reserve(payload.size() + 16);
  append_le<std::uint64_t>(out, payload.size());
  append_le<std::uint32_t>(out, mask_crc32c(crc32c(std::span(out.data(), 8))));
  out.insert(out.end(), payload.begin(), payload.end());
  append_le<std::uint32_t>(out, mask_crc32c(crc32c(payload)));
  return out;
}

}  // namespace strand::io
