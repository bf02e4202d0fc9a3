// Column and name lists: "4,6,9-12" and "chr8,chr9".
#include "data/list_syntax.h"

#include <algorithm>
#include <set>

#include "data/data_error.h"
#include "data/text_fields.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    out.push_back(text.substr(begin, comma == std::string_view::npos ? comma : comma - begin));
    if (comma == std::string_view::npos) return out;
    begin = comma + 1;
  }
}

}  // namespace

std::vector<int> parse_column_list(std::string_view text, std::string_view what,
                                   int first_allowed) {
  const auto fail = [&](std::string_view entry, const std::string& problem) {
    throw DataError(
        fmt::format("{}: '{}' in '{}' {}; expected 1-based columns such as 4, 4-167 or 4,6,9-12",
                    what, excerpt(entry), excerpt(text), problem));
  };
  if (text.empty()) {
    throw DataError(fmt::format(
        "{}: empty column list; expected 1-based columns such as 4, 4-167 or 4,6,9-12", what));
  }
  const auto column = [&](std::string_view entry, std::string_view number) {
    const auto value = parse_int(number);
    if (!value) fail(entry, "is not a column number");
    if (*value < first_allowed || *value > kMaxColumn) {
      fail(entry, fmt::format("is outside [{}, {}]", first_allowed, kMaxColumn));
    }
    return static_cast<int>(*value);
  };
  std::vector<int> columns;
  std::set<int> seen;
  for (const std::string_view entry : split_commas(text)) {
    if (entry.empty()) fail(entry, "is an empty entry");
    const size_t dash = entry.find('-', 1);  // a leading '-' is a negative number, not a range
    int lo = 0;
    int hi = 0;
    if (dash == std::string_view::npos) {
      lo = hi = column(entry, entry);
    } else {
      lo = column(entry, entry.substr(0, dash));
      hi = column(entry, entry.substr(dash + 1));
      if (hi < lo) fail(entry, "is a descending range");
    }
    for (int c = lo; c <= hi; ++c) {
      if (!seen.insert(c).second) fail(entry, fmt::format("names column {} a second time", c));
      columns.push_back(c);
    }
  }
  return columns;
}

std::string format_column_list(const std::vector<int>& columns) {
  std::vector<std::string> entries;
  for (size_t i = 0; i < columns.size();) {
    size_t end = i + 1;
    while (end < columns.size() && columns[end] == columns[end - 1] + 1) ++end;
    entries.push_back(end - i >= 2 ? fmt::format("{}-{}", columns[i], columns[end - 1])
                                   : std::to_string(columns[i]));
    i = end;
  }
  return fmt::format("{}", fmt::join(entries, ","));
}

std::string format_name_list(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ","));
}

std::vector<std::string> parse_name_list(std::string_view text, std::string_view what) {
  std::vector<std::string> names;
  size_t position = 0;
  for (const std::string_view entry : split_commas(text)) {
    ++position;
    if (entry.empty()) {
      throw DataError(
          fmt::format("{}: entry {} of '{}' is empty; expected names separated by "
                      "single commas, such as chr8,chr9",
                      what, position, excerpt(text)));
    }
    if (entry.find_first_of("\t\n\r") != std::string_view::npos) {
      throw DataError(fmt::format("{}: entry {} '{}' holds a tab or line break", what, position,
                                  excerpt(entry)));
    }
    if (std::find(names.begin(), names.end(), entry) != names.end()) {
      throw DataError(
          fmt::format("{}: '{}' is given twice in '{}'", what, excerpt(entry), excerpt(text)));
    }
    names.emplace_back(entry);
  }
  return names;
}

}  // namespace strand::data
