// Crash-safe whole-file writes: write a temp file next to the target, fsync, then rename.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace strand::io {

/// Writes a file so that readers only ever see the old contents or the complete new contents.
///
/// Bytes go to a uniquely named temporary file in the target's directory (rename is only atomic
/// within one file system), which is fsync'ed, renamed over the target, and the directory is
/// fsync'ed so the rename itself survives a crash. If the writer is destroyed without commit()
/// the temporary file is removed and the target is untouched.
class AtomicFileWriter {
 public:
  /// Opens the temporary file; throws std::runtime_error naming the path on failure.
  explicit AtomicFileWriter(std::filesystem::path target);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// Appends raw bytes to the temporary file.
  void write(std::span<const std::byte> bytes);
  /// Appends text to the temporary file.
  void write(std::string_view text);
  /// Flushes, fsyncs and renames the temporary file over the target. Call exactly once.
  void commit();

  /// The final path this writer publishes to.
  [[nodiscard]] const std::filesystem::path& target() const { return target_; }

 private:
  void write_raw(const void* data, std::size_t size);
  void abandon() noexcept;

  std::filesystem::path target_;
  std::filesystem::path temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

/// Removes the temporary files that AtomicFileWriters for `target` left behind when their
/// process died (kill -9, power loss): regular files named "<target>.tmp.XXXXXX" (six letters
/// or digits, mkstemp's naming) in target's directory that no live writer holds. Each writer
/// keeps an exclusive flock on its temporary file until it is renamed, and the kernel releases
/// it when the process ends. Returns how many were removed; anything it cannot open, lock or
/// remove is left alone.
int64_t remove_orphan_temp_files(const std::filesystem::path& target);

/// Atomically replaces `path` with `bytes` (see AtomicFileWriter).
void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);
/// Atomically replaces `path` with `text` (see AtomicFileWriter).
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace strand::io
