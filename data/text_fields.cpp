// Tab-separated text helpers: CR-stripping line reader and strict number parsing.
#include "data/text_fields.h"

#include <cerrno>
#include <charconv>
#include <cstring>

#include "data/data_error.h"
#include "fmt/format.h"

namespace strand::data {

LineReader::LineReader(const std::string& path) : path_(path), in_(path) {
  if (!in_) throw DataError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
}

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) return false;
  ++line_number_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
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

}  // namespace strand::data
