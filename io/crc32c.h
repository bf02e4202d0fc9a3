// CRC-32C (Castagnoli) checksum, as used by TFRecord framing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace strand::io {

/// Continues a CRC-32C over `data` starting from a previous result (0 for a fresh checksum).
/// Uses the SSE4.2 crc32 instruction when compiled for it, else a slicing-by-8 table.
[[nodiscard]] std::uint32_t crc32c_extend(std::uint32_t crc, std::span<const std::byte> data);

/// CRC-32C of `data`; crc32c of "123456789" is 0xE3069283.
[[nodiscard]] inline std::uint32_t crc32c(std::span<const std::byte> data) {
  return crc32c_extend(0, data);
}

/// The table-driven implementation regardless of CPU support (exposed so tests can compare it
/// with the hardware path).
[[nodiscard]] std::uint32_t crc32c_extend_portable(std::uint32_t crc,
                                                   std::span<const std::byte> data);

/// TFRecord's masked CRC: rotate right by 15 and add a constant, so that a CRC stored inside
/// checksummed data does not checksum to a trivial value.
[[nodiscard]] constexpr std::uint32_t mask_crc32c(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

}  // namespace strand::io
