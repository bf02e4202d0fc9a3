// AtomicFileWriter: POSIX temp-file + fsync + rename implementation.
#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace strand::io {
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

// mkstemp replaces "XXXXXX" with six characters from [A-Za-z0-9].
constexpr std::string_view kTempInfix = ".tmp.";
constexpr size_t kTempSuffixLength = 6;

bool is_temp_name_of(std::string_view name, std::string_view target) {
  if (name.size() != target.size() + kTempInfix.size() + kTempSuffixLength ||
      !name.starts_with(target) || name.substr(target.size(), kTempInfix.size()) != kTempInfix) {
    return false;
  }
  const std::string_view suffix = name.substr(target.size() + kTempInfix.size());
  return std::all_of(suffix.begin(), suffix.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
  // mkstemp gives a unique name so concurrent writers of the same target cannot collide.
  std::string pattern = target_.string() + std::string(kTempInfix) + "XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  fd_ = ::mkstemp(buf.data());
  if (fd_ < 0) {
    throw io_error("creating temporary file for", target_, errno);
  }
  temp_path_ = std::filesystem::path(buf.data());
  // Held until the file is renamed or removed: remove_orphan_temp_files() leaves it alone, and
  // the kernel drops the lock when the process dies, which is what makes a file an orphan.
  ::flock(fd_, LOCK_EX | LOCK_NB);
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
  // Renamed while still open (and locked), so the temporary name never exists unlocked.
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    abandon();
    throw io_error("renaming temporary file onto", target_, err);
  }
  committed_ = true;
  const int closed = ::close(fd_);
  const int close_error = errno;
  fd_ = -1;
  // fsync succeeded, so the bytes are on disk; a failing close still means something is wrong.
  if (closed != 0) throw io_error("closing", target_, close_error);
  sync_directory(target_.parent_path());
}

int64_t remove_orphan_temp_files(const std::filesystem::path& target) {
  const std::filesystem::path dir =
      target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  const std::string name = target.filename().string();
  int64_t removed = 0;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::filesystem::path path = it->path();
    if (!is_temp_name_of(path.filename().string(), name)) continue;
    std::error_code status_error;
    if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, status_error))) {
      continue;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    // A live writer holds the lock; a dead one's lock went with its process.
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::unlink(path.c_str()) == 0) ++removed;
    ::close(fd);
  }
  return removed;
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

}  // namespace strand::io
