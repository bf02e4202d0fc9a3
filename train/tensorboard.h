// TensorBoard event-file writer (scalars), written from scratch: protobuf Events in TFRecords.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace strand::train {

/// Encodes Event{wall_time=1, file_version=3} with file_version "brain.Event:2", the record
/// every event file starts with.
[[nodiscard]] std::vector<std::byte> encode_file_version_event(double wall_time);

/// Encodes Event{wall_time=1, step=2, summary=5: Summary{value=1: Value{tag=1,
/// simple_value=2}}}: one scalar point.
[[nodiscard]] std::vector<std::byte> encode_scalar_event(double wall_time, std::int64_t step,
                                                         std::string_view tag, float value);

/// Seconds since the Unix epoch, as TensorBoard's wall_time.
[[nodiscard]] double unix_time_seconds();

/// Appends scalar summaries to the file events.out.tfevents.UNIX_TIME.HOSTNAME in `log_dir`.
///
/// Records are buffered in memory and written by flush() (also called from the destructor and
/// when the buffer grows large). An event file is an append-only log that TensorBoard reads
/// while it grows, so it is not written via temp-file-and-rename; a crash loses at most the
/// unflushed tail, and readers skip a truncated last record.
class SummaryWriter {
 public:
  /// Creates `log_dir` if needed and a new event file in it (never reusing an existing file: a
  /// name collision gets a ".1", ".2", ... suffix). Writes the file_version record.
  explicit SummaryWriter(const std::filesystem::path& log_dir);
  ~SummaryWriter();
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  /// Records `value` for `tag` at `step`, stamped with the current time.
  void add_scalar(std::string_view tag, double value, std::int64_t step);
  /// Records `value` for `tag` at `step` with an explicit wall time (seconds since epoch).
  void add_scalar(std::string_view tag, double value, std::int64_t step, double wall_time);
  /// Writes buffered records and fsyncs the file.
  void flush();

  /// The event file being written.
  [[nodiscard]] const std::filesystem::path& file_path() const { return path_; }

 private:
  void append_record(std::span<const std::byte> event);
  void write_pending();

  std::filesystem::path path_;
  int fd_ = -1;
  std::vector<std::byte> pending_;
};

}  // namespace strand::train
