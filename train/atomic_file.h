// Crash-safe whole-file writes: write a temp file next to the target, fsync, then rename.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace strand::train {

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

/// Atomically replaces `path` with `bytes` (see AtomicFileWriter).
void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);
/// Atomically replaces `path` with `text` (see AtomicFileWriter).
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace strand::train
