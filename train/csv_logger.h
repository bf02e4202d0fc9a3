// Per-epoch CSV log (one row per epoch, fixed header) inside a run directory.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strand::train {

/// Appends rows of numbers under a fixed header to a CSV file.
///
/// Each row goes to the file in a single write() on an O_APPEND descriptor, so a crash leaves
/// whole rows (a torn last line is only possible on power loss, and is dropped on reopen).
/// Reopening an existing log with the same header resumes it; a different header is an error,
/// so a resumed run cannot silently mix column layouts.
class CsvLogger {
 public:
  /// Opens or creates `path` with the given column names (non-empty, unique).
  CsvLogger(std::filesystem::path path, std::vector<std::string> columns);
  ~CsvLogger();
  CsvLogger(const CsvLogger&) = delete;
  CsvLogger& operator=(const CsvLogger&) = delete;

  /// Appends one row; `values` must have one value per column, in column order. Numbers are
  /// written in shortest round-trip form ("0.1", "3", "nan").
  void log(std::span<const double> values);
  /// Appends one row given by column name; the keys must be exactly the columns.
  void log(const std::map<std::string, double>& values);
  /// Appends one row with one entry per column, in column order; an empty entry is an empty
  /// cell (a figure this row lacks).
  void log(std::span<const std::optional<double>> values);

  /// The column names.
  [[nodiscard]] const std::vector<std::string>& columns() const { return columns_; }
  /// The CSV file.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  void write_line(const std::string& line);

  std::filesystem::path path_;
  std::vector<std::string> columns_;
  int fd_ = -1;
};

/// Quotes a CSV field per RFC 4180 when it contains a comma, quote, CR or LF.
[[nodiscard]] std::string csv_escape(const std::string& field);

}  // namespace strand::train
