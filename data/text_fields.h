// Small helpers for tab-separated text: line reading with CR stripping and strict numbers.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strand::data {

/// Reads lines, stripping a trailing carriage return (CRLF files) and counting 1-based line
/// numbers.
class LineReader {
 public:
  /// Throws DataError when the file cannot be opened.
  explicit LineReader(const std::string& path);
  /// Next line without its terminator; false at end of file.
  bool next(std::string& line);
  /// 1-based number of the line last returned by next() (0 before the first).
  int64_t line_number() const { return line_number_; }

 private:
  std::string path_;
  std::ifstream in_;
  int64_t line_number_ = 0;
};

/// Splits on '\t'. The views point into `line`.
std::vector<std::string_view> split_tabs(std::string_view line);

/// Whole-field integer / float parses; nullopt unless the entire field is a number.
std::optional<int64_t> parse_int(std::string_view field);
std::optional<float> parse_float(std::string_view field);

/// True for lines that hold only spaces/tabs.
bool is_blank(std::string_view line);

}  // namespace strand::data
