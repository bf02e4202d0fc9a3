// read_maybe_gzipped via zlib's gz* API, which passes non-gzip input through unchanged.
#include "data/gzip_reader.h"

#include <zlib.h>

#include <limits>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

namespace strand::data {

std::string read_maybe_gzipped(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path)) {
    throw std::runtime_error(fmt::format("cannot read '{}': not a regular file", path.string()));
  }
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) {
    throw std::runtime_error(fmt::format("cannot open '{}'", path.string()));
  }
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(file.get(), buf, sizeof(buf));
    if (n < 0) {
      int errnum = 0;
      const char* msg = gzerror(file.get(), &errnum);
      throw std::runtime_error(
          fmt::format("decompressing '{}' failed: {}", path.string(), msg ? msg : "unknown"));
    }
    if (n == 0) {
      break;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  // gzread returns 0 both at a clean end and at a truncated stream; gzerror tells them apart.
  int errnum = 0;
  const char* msg = gzerror(file.get(), &errnum);
  if (errnum != Z_OK && errnum != Z_STREAM_END) {
    throw std::runtime_error(
        fmt::format("decompressing '{}' failed: {}", path.string(), msg ? msg : "unknown"));
  }
  return out;
}

std::string gunzip(std::span<const unsigned char> bytes, std::string_view source) {
  if (bytes.size() > std::numeric_limits<uInt>::max()) {
    throw std::runtime_error(fmt::format("decompressing {} failed: over 4 GiB", source));
  }
  z_stream stream{};
  // 16 + MAX_WBITS: a gzip header and trailer around the deflate data, checked by zlib.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    throw std::runtime_error(fmt::format("decompressing {} failed: {}", source,
                                         stream.msg ? stream.msg : "inflateInit2"));
  }
  std::unique_ptr<z_stream, int (*)(z_streamp)> guard(&stream, inflateEnd);
  // zlib's API takes a non-const input pointer but never writes through it.
  stream.next_in = const_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buf[1 << 16];
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buf);
    stream.avail_out = sizeof(buf);
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) {
      // Z_BUF_ERROR with input left over cannot happen (the output buffer was emptied); without
      // input it means the stream ended early.
      throw std::runtime_error(fmt::format(
          "decompressing {} failed: {}", source,
          status == Z_BUF_ERROR ? "truncated gzip data" : (stream.msg ? stream.msg : "bad data")));
    }
    out.append(buf, sizeof(buf) - stream.avail_out);
  }
  return out;
}

}  // namespace strand::data
