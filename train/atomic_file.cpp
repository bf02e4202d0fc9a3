// AtomicFileWriter: POSIX temp-file + fsync + rename implementation.
#include "train/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace strand::train {
namespace {

std::runtime_error io_error(std::string_view what, const std::filesystem::path& path, int err) {
  return std::runtime_error(
      fmt::format("{} '{}' failed: {}", what, path.string(), std::strerror(err)));
}

// fsync the directory so that the rename's directory entry is durable too.
void sync_directory(const std::filesystem::path& dir) {
  const std::filesystem::path d = dir.empty() ? std::filesystem::path(".") : dir;
  const int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) {
    return;  // Some file systems do not allow opening directories; the rename is still atomic.
  }
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
  // mkstemp gives a unique name so concurrent writers of the same target cannot collide.
  std::string pattern = target_.string() + ".tmp.XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  fd_ = ::mkstemp(buf.data());
  if (fd_ < 0) {
    throw io_error("creating temporary file for", target_, errno);
  }
  temp_path_ = std::filesystem::path(buf.data());
  // mkstemp creates 0600; published files should get the usual permissions.
  ::fchmod(fd_, 0644);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) {
    abandon();
  }
}

void AtomicFileWriter::abandon() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_path_.empty()) {
    std::error_code ec;
    std::filesystem::remove(temp_path_, ec);
  }
}

void AtomicFileWriter::write_raw(const void* data, std::size_t size) {
  if (committed_ || fd_ < 0) {
    throw std::logic_error(fmt::format("write to '{}' after commit", target_.string()));
  }
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw io_error("writing", temp_path_, errno);
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void AtomicFileWriter::write(std::span<const std::byte> bytes) {
  write_raw(bytes.data(), bytes.size());
}

void AtomicFileWriter::write(std::string_view text) { write_raw(text.data(), text.size()); }

void AtomicFileWriter::commit() {
  if (committed_ || fd_ < 0) {
    throw std::logic_error(fmt::format("commit of '{}' called twice", target_.string()));
  }
  if (::fsync(fd_) != 0) {
    const int err = errno;
    abandon();
    throw io_error("fsync of", temp_path_, err);
  }
  if (::close(fd_) != 0) {
    const int err = errno;
    fd_ = -1;
    abandon();
    throw io_error("closing", temp_path_, err);
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    abandon();
    throw io_error("renaming temporary file onto", target_, err);
  }
  committed_ = true;
  sync_directory(target_.parent_path());
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  AtomicFileWriter writer(path);
  writer.write(bytes);
  writer.commit();
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  AtomicFileWriter writer(path);
  writer.write(text);
  writer.commit();
}

}  // namespace strand::train
