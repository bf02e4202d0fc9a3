// Whole-file reading with transparent gzip decompression (zlib).
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace strand::data {

/// Returns the contents of `path`, gunzipped if it is gzip-compressed (plain files are returned
/// as-is). Throws std::runtime_error naming the file on open, read or decompression errors.
[[nodiscard]] std::string read_maybe_gzipped(const std::filesystem::path& path);

/// Returns the gunzipped contents of gzip data held in memory. Throws std::runtime_error naming
/// `source` when the data is not gzip, is truncated or fails to decompress.
[[nodiscard]] std::string gunzip(std::span<const unsigned char> bytes, std::string_view source);

}  // namespace strand::data
