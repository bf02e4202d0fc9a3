// Tab-separated text helpers: bounded CR-stripping line reader, strict number parsing and
// printable excerpts of bad input.
#include "data/text_fields.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "data/data_error.h"
#include "fmt/format.h"

namespace strand::data {

namespace {

constexpr size_t kReadAheadBytes = size_t{1} << 16;

}  // namespace

LineReader::LineReader(const std::string& path, size_t max_line_bytes)
    : path_(path),
      in_(path, std::ios::binary),
      max_line_bytes_(max_line_bytes),
      buffer_(kReadAheadBytes) {
  if (!in_) throw DataError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  // An ifstream opens a directory, and the first read fails: say what it is instead.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw DataError(fmt::format("'{}' is a directory, expected a file", path));
  }
}

DataError LineReader::cr_only_line_ends(int64_t line) const {
  return DataError(fmt::format(
      "{}:{}: a carriage return (CR) is followed by more text on the same line: the file has "
      "CR-only line ends (classic Mac OS), which read as one long line; strand reads LF or CRLF "
      "line ends (convert with: tr '\\r' '\\n' < in > out)",
      path_, line));
}

bool LineReader::refill() {
  in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  pos_ = 0;
  end_ = static_cast<size_t>(in_.gcount());
  if (end_ == 0 && in_.bad()) {
    throw DataError(fmt::format("{}: read error after line {}", path_, line_number_));
  }
  return end_ > 0;
}

bool LineReader::next(std::string& line) {
  line.clear();
  bool any = false;  // a byte or a terminator was read: there is a line
  // One extra byte is allowed for the CR of a CRLF line of exactly max_line_bytes.
  const size_t limit = max_line_bytes_ + 1;
  while (pos_ < end_ || refill()) {
    any = true;
    const char* start = buffer_.data() + pos_;
    const auto* newline = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
    const size_t take = newline != nullptr ? static_cast<size_t>(newline - start) : end_ - pos_;
    if (line.size() + take > limit) {
      line.append(start, std::min(take, kMaxExcerptChars));
      if (line.find('\r') != std::string::npos) throw cr_only_line_ends(line_number_ + 1);
      throw DataError(fmt::format(
          "{}:{}: line is longer than the {}-byte limit (a binary file, or no line breaks?); it "
          "starts '{}'",
          path_, line_number_ + 1, max_line_bytes_, excerpt(line)));
    }
    line.append(start, take);
    pos_ += take;
    if (newline != nullptr) {
      ++pos_;
      break;
    }
  }
  if (!any) return false;
  ++line_number_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.find('\r') != std::string::npos) throw cr_only_line_ends(line_number_);
  if (line.size() > max_line_bytes_) {
    throw DataError(fmt::format(
        "{}:{}: line is longer than the {}-byte limit (a binary file, or no line breaks?); it "
        "starts '{}'",
        path_, line_number_, max_line_bytes_, excerpt(line)));
  }
  return true;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t begin = 0;
  while (true) {
    const size_t tab = line.find('\t', begin);
    if (tab == std::string_view::npos) {
      fields.push_back(line.substr(begin));
      return fields;
    }
    fields.push_back(line.substr(begin, tab - begin));
    begin = tab + 1;
  }
}

std::optional<int64_t> parse_int(std::string_view field) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) {
    return std::nullopt;
  }
  return value;
}

std::optional<float> parse_float(std::string_view field) {
  float value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) {
    return std::nullopt;
  }
  return value;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

std::string excerpt(std::string_view text, size_t max_chars) {
  std::string out;
  size_t used = 0;  // characters of the excerpt, an escape counting as one
  size_t i = 0;
  for (; i < text.size() && used < max_chars; ++i, ++used) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c >= 0x20 && c < 0x7F) {
          out.push_back(static_cast<char>(c));
        } else {
          out += fmt::format("\\x{:02x}", c);
        }
    }
  }
  if (i < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

}  // namespace strand::data
