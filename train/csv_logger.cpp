// CsvLogger implementation.
#include "train/csv_logger.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace strand::train {
namespace {

std::string join_header(const std::vector<std::string>& columns) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) {
      line += ',';
    }
    line += csv_escape(columns[i]);
  }
  return line;
}

// The columns of a header line written by join_header() (names are strand's keys, so a
// quoted field is only split at commas outside quotes).
std::vector<std::string> split_header(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// Why an existing log cannot be continued: which columns it has that the writer lacks and the
// other way round, so that a resumed run's changed metrics are plain to see.
std::string header_mismatch(const std::filesystem::path& path, const std::string& found,
                            const std::string& expected, const std::vector<std::string>& columns) {
  const std::vector<std::string> existing = split_header(found);
  std::vector<std::string> only_file, only_run;
  for (const std::string& c : existing) {
    if (std::find(columns.begin(), columns.end(), c) == columns.end()) only_file.push_back(c);
  }
  for (const std::string& c : columns) {
    if (std::find(existing.begin(), existing.end(), c) == existing.end()) only_run.push_back(c);
  }
  std::string difference;
  if (!only_file.empty()) {
    difference += fmt::format("; only in the file: {}", fmt::join(only_file, ", "));
  }
  if (!only_run.empty()) {
    difference += fmt::format("; only in this run: {}", fmt::join(only_run, ", "));
  }
  if (difference.empty()) difference = "; the same columns in another order";
  return fmt::format(
      "CsvLogger '{}': existing header '{}' differs from expected '{}'{} (the log was written "
      "with other metrics: another model, data or strand version); rows cannot be appended",
      path.string(), found, expected, difference);
}

}  // namespace

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) {
    return field;
  }
  std::string out = "\"";
  for (char c : field) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

CsvLogger::CsvLogger(std::filesystem::path path, std::vector<std::string> columns)
    : path_(std::move(path)), columns_(std::move(columns)) {
  if (columns_.empty()) {
    throw std::invalid_argument(fmt::format("CsvLogger '{}': no columns", path_.string()));
  }
  std::set<std::string> unique(columns_.begin(), columns_.end());
  if (unique.size() != columns_.size() || unique.contains("")) {
    throw std::invalid_argument(
        fmt::format("CsvLogger '{}': column names must be non-empty and unique", path_.string()));
  }
  const std::string header = join_header(columns_);

  // Resuming: check the existing header and drop a torn final line.
  std::error_code ec;
  const bool exists = std::filesystem::exists(path_, ec) && std::filesystem::file_size(path_) > 0;
  if (exists) {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const auto first_newline = text.find('\n');
    const std::string found = text.substr(0, first_newline);
    if (first_newline == std::string::npos || found != header) {
      throw std::runtime_error(header_mismatch(path_, found, header, columns_));
    }
    const auto last_newline = text.rfind('\n');
    if (last_newline + 1 != text.size()) {
      std::filesystem::resize_file(path_, last_newline + 1);
    }
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error(
        fmt::format("CsvLogger: cannot open '{}': {}", path_.string(), std::strerror(errno)));
  }
  if (!exists) {
    write_line(header);
  }
}

CsvLogger::~CsvLogger() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

void CsvLogger::write_line(const std::string& line) {
  const std::string data = line + "\n";
  // One write() per line; a short write on a regular file means the disk is full.
  const ssize_t n = ::write(fd_, data.data(), data.size());
  if (n != static_cast<ssize_t>(data.size())) {
    throw std::runtime_error(fmt::format("CsvLogger: writing '{}' failed: {}", path_.string(),
                                         n < 0 ? std::strerror(errno) : "short write"));
  }
}

void CsvLogger::log(std::span<const double> values) {
  if (values.size() != columns_.size()) {
    throw std::invalid_argument(fmt::format("CsvLogger '{}': row has {} values, header has {}",
                                            path_.string(), values.size(), columns_.size()));
  }
  std::string line;
  for (std::size_t i = 0; i < values.size(); ++i) {
    line += fmt::format("{}{}", i ? "," : "", values[i]);
  }
  write_line(line);
}

void CsvLogger::log(std::span<const std::optional<double>> values) {
  if (values.size() != columns_.size()) {
    throw std::invalid_argument(fmt::format("CsvLogger '{}': row has {} values, header has {}",
                                            path_.string(), values.size(), columns_.size()));
  }
  std::string line;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) line += ',';
    if (values[i]) line += fmt::format("{}", *values[i]);
  }
  write_line(line);
}

void CsvLogger::log(const std::map<std::string, double>& values) {
  std::vector<double> row;
  row.reserve(columns_.size());
  for (const auto& c : columns_) {
    const auto it = values.find(c);
    if (it == values.end()) {
      throw std::invalid_argument(
          fmt::format("CsvLogger '{}': row lacks column '{}'", path_.string(), c));
    }
    row.push_back(it->second);
  }
  if (values.size() != columns_.size()) {
    for (const auto& [k, v] : values) {
      if (std::find(columns_.begin(), columns_.end(), k) == columns_.end()) {
        throw std::invalid_argument(
            fmt::format("CsvLogger '{}': row has unknown column '{}'", path_.string(), k));
      }
    }
  }
  log(row);
}

}  // namespace strand::train
