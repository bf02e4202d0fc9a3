// Whole-file reading with transparent gzip decompression (zlib).
#pragma once

#include <filesystem>
#include <string>

namespace strand::data {

/// Returns the contents of `path`, gunzipped if it is gzip-compressed (plain files are returned
/// as-is). Throws std::runtime_error naming the file on open, read or decompression errors.
[[nodiscard]] std::string read_maybe_gzipped(const std::filesystem::path& path);

}  // namespace strand::data
