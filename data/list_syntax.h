// Lists as a command line writes them: 1-based column lists ("4-167", "4,6,9-12") and
// comma-separated names ("chr8,chr9", "CTCF,JUN"), parsed strictly so that a typo is an error
// naming what was being read, never a silently shorter list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strand::data {

/// The largest column a column list may name: a line holds at most 1 MiB (kMaxLineBytes), so
/// no line has more fields than half of that.
inline constexpr int kMaxColumn = 1 << 19;

/// Parses 1-based columns: entries separated by commas, each a column ("4") or an ascending
/// inclusive range ("9-12"). Every column must be in [`first_allowed`, kMaxColumn] and appear
/// once; the order written is kept. Throws DataError naming `what` (a flag or config key), the
/// offending entry and the expected form.
std::vector<int> parse_column_list(std::string_view text, std::string_view what,
                                   int first_allowed = 1);

/// The list parse_column_list() reads back as `columns`: ascending runs of two or more columns
/// as ranges ("4-167", "4,6,9-12"); "" for none.
std::string format_column_list(const std::vector<int>& columns);

/// Splits "a,b,c" on commas. Empty entries, entries with a tab, newline or carriage return,
/// and entries given twice are errors naming `what`, the entry and its position.
std::vector<std::string> parse_name_list(std::string_view text, std::string_view what);

/// The list parse_name_list() reads back as `names`: "a,b,c"; "" for none.
std::string format_name_list(const std::vector<std::string>& names);

}  // namespace strand::data
