// SummaryWriter and TensorBoard Event encoding.
#include "train/tensorboard.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "io/protobuf_encoder.h"
#include "io/tfrecord.h"

namespace strand::train {
namespace {

// Field numbers from tensorboard/compat/proto/event.proto and summary.proto.
constexpr std::uint32_t kEventWallTime = 1;
constexpr std::uint32_t kEventStep = 2;
constexpr std::uint32_t kEventFileVersion = 3;
constexpr std::uint32_t kEventSummary = 5;
constexpr std::uint32_t kSummaryValue = 1;
constexpr std::uint32_t kValueTag = 1;
constexpr std::uint32_t kValueSimpleValue = 2;
constexpr std::string_view kFileVersion = "brain.Event:2";
constexpr std::size_t kFlushThresholdBytes = 1 << 20;

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') {
    return "localhost";
  }
  std::string name(buf);
  // The host name becomes part of a file name.
  for (char& c : name) {
    if (c == '/') {
      c = '_';
    }
  }
  return name;
}

}  // namespace

double unix_time_seconds() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration<double>(now).count();
}

std::vector<std::byte> encode_file_version_event(double wall_time) {
  io::ProtobufEncoder event;
  event.add_double(kEventWallTime, wall_time);
  event.add_string(kEventFileVersion, kFileVersion);
  return event.bytes();
}

std::vector<std::byte> encode_scalar_event(double wall_time, std::int64_t step,
                                           std::string_view tag, float value) {
  io::ProtobufEncoder summary_value;
  summary_value.add_string(kValueTag, tag);
  summary_value.add_float(kValueSimpleValue, value);
  io::ProtobufEncoder summary;
  summary.add_message(kSummaryValue, summary_value.bytes());
  io::ProtobufEncoder event;
  event.add_double(kEventWallTime, wall_time);
  event.add_int64(kEventStep, step);
  event.add_message(kEventSummary, summary.bytes());
  return event.bytes();
}

SummaryWriter::SummaryWriter(const std::filesystem::path& log_dir) {
  std::filesystem::create_directories(log_dir);
  const double now = unix_time_seconds();
  const std::string base =
      fmt::format("events.out.tfevents.{}.{}", static_cast<std::int64_t>(now), host_name());
  for (int attempt = 0; fd_ < 0; ++attempt) {
    path_ = log_dir / (attempt == 0 ? base : fmt::format("{}.{}", base, attempt));
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0 && (errno != EEXIST || attempt >= 1000)) {
      throw std::runtime_error(fmt::format("SummaryWriter: cannot create event file '{}': {}",
                                           path_.string(), std::strerror(errno)));
    }
  }
  append_record(encode_file_version_event(now));
  flush();
}

SummaryWriter::~SummaryWriter() {
  try {
    write_pending();
  } catch (...) {
    // Destructors must not throw; callers wanting the error call flush() explicitly.
  }
  ::close(fd_);
}

void SummaryWriter::add_scalar(std::string_view tag, double value, std::int64_t step) {
  add_scalar(tag, value, step, unix_time_seconds());
}

void SummaryWriter::add_scalar(std::string_view tag, double value, std::int64_t step,
                               double wall_time) {
  // TensorBoard's simple_value is a float.
  append_record(encode_scalar_event(wall_time, step, tag, static_cast<float>(value)));
  if (pending_.size() >= kFlushThresholdBytes) {
    write_pending();
  }
}

void SummaryWriter::append_record(std::span<const std::byte> event) {
  const auto framed = io::frame_tfrecord(event);
  pending_.insert(pending_.end(), framed.begin(), framed.end());
}

void SummaryWriter::write_pending() {
  std::size_t done = 0;
  while (done < pending_.size()) {
    const ssize_t n = ::write(fd_, pending_.data() + done, pending_.size() - done);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      // Drop what was written so a retry does not duplicate records.
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(done));
      throw std::runtime_error(fmt::format("SummaryWriter: writing '{}' failed: {}", path_.string(),
                                           std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
  pending_.clear();
}

void SummaryWriter::flush() {
  write_pending();
  if (::fsync(fd_) != 0) {
    throw std::runtime_error(fmt::format("SummaryWriter: fsync of '{}' failed: {}", path_.string(),
                                         std::strerror(errno)));
  }
}

}  // namespace strand::train
