// Small helpers for tab-separated text: bounded line reading with CR stripping, strict numbers,
// and the excerpt of bad input that error messages quote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/data_error.h"

namespace strand::data {

/// The longest line LineReader accepts by default (1 MiB, terminator excluded). Text formats
/// strand reads have short lines; a longer one is binary data or a wrong file.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;

/// How many characters of a bad line or field an error message quotes (see excerpt()).
inline constexpr size_t kMaxExcerptChars = 80;

/// Reads lines, stripping a trailing carriage return (CRLF files) and counting 1-based line
/// numbers. A line longer than the cap is an error naming the file, the line and the cap, and
/// is never held in memory beyond the cap; so is a line holding a carriage return before its
/// end (a file with CR-only line ends), and a directory given as the file.
class LineReader {
 public:
  /// Throws DataError when the file cannot be opened.
  explicit LineReader(const std::string& path, size_t max_line_bytes = kMaxLineBytes);
  /// Next line without its terminator; false at end of file. Throws DataError for a line of
  /// more than max_line_bytes bytes.
  bool next(std::string& line);
  /// 1-based number of the line last returned by next() (0 before the first).
  int64_t line_number() const { return line_number_; }

 private:
  bool refill();
  // The error for a line holding a CR before its end.
  DataError cr_only_line_ends(int64_t line) const;

  std::string path_;
  std::ifstream in_;
  size_t max_line_bytes_;
  int64_t line_number_ = 0;
  std::vector<char> buffer_;  // bytes read ahead; [pos_, end_) not yet returned
  size_t pos_ = 0;
  size_t end_ = 0;
};

/// Splits on '\t'. The views point into `line`.
std::vector<std::string_view> split_tabs(std::string_view line);

/// Whole-field integer / float parses; nullopt unless the entire field is a number.
std::optional<int64_t> parse_int(std::string_view field);
std::optional<float> parse_float(std::string_view field);

/// True for lines that hold only spaces/tabs.
bool is_blank(std::string_view line);

/// Bad input as an error message quotes it: at most `max_chars` characters, with tab, CR, LF
/// and backslash written as \t \r \n \\, other bytes outside printable ASCII as \xNN, and
/// "... (N bytes)" appended when the text was cut. So an error line stays short and printable
/// whatever the file holds.
std::string excerpt(std::string_view text, size_t max_chars = kMaxExcerptChars);

}  // namespace strand::data
