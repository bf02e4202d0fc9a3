// TFRecord framing: the container format of TensorBoard event files.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace strand::io {

/// Frames one record: uint64 length (little-endian), masked CRC-32C of those 8 bytes, the
/// payload, masked CRC-32C of the payload (CRCs little-endian uint32).
[[nodiscard]] std::vector<std::byte> frame_tfrecord(std::span<const std::byte> payload);

}  // namespace strand::io
