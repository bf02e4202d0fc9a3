// read_maybe_gzipped via zlib's gz* API, which passes non-gzip input through unchanged.
#include "data/simulation/gzip_reader.h"

#include <zlib.h>

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

}  // namespace strand::data
