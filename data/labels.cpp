// Label parsing and checking: missing markers, finite / binary values, all-missing files.
#include "data/labels.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "data/data_error.h"
#include "data/text_fields.h"
#include "fmt/format.h"

namespace strand::data {

bool is_missing_label(std::string_view field) {
  std::string l(field);
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "." || l == "na" || l == "nan" || l == "-nan" || l == "+nan";
}

bool is_target_name(std::string_view field) {
  if (field.empty()) return false;
  const auto first = static_cast<unsigned char>(field.front());
  return (std::isalpha(first) != 0 || first == '_') && !is_missing_label(field) &&
         !parse_float(field);
}

Label parse_label(std::string_view field, LabelKind kind, const std::string& path, int64_t line,
                  int column) {
  if (is_missing_label(field)) return {0.0F, false};
  // Parsed as double so that the binary check is exact (0.99999999999 is not 1) and a value
  // beyond float's range is reported rather than stored as inf.
  double value = 0.0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  const bool number = !field.empty() && ec == std::errc() && end == field.data() + field.size();
  if (!number || !std::isfinite(value) ||
      std::fabs(value) > static_cast<double>(std::numeric_limits<float>::max())) {
    throw DataError(fmt::format(
        "{}:{}: label column {} must be a finite number, or missing ('.', NA, nan), found '{}'",
        path, line, column, excerpt(field)));
  }
  if (kind == LabelKind::kBinary && value != 0.0 && value != 1.0) {
    throw DataError(fmt::format(
        "{}:{}: label column {} must be 0 or 1 for binary labels (binary cross-entropy), or "
        "missing ('.', NA, nan), found '{}'; train with a regression loss (mse) for other values",
        path, line, column, excerpt(field)));
  }
  return {value == 0.0 ? 0.0F : static_cast<float>(value), true};  // -0 is stored as 0
}

Label parse_dream_label(std::string_view field, const std::string& path, int64_t line, int column) {
  if (field == "B") return {1.0F, true};
  if (field == "U") return {0.0F, true};
  if (field == "A") return {0.0F, false};
  throw DataError(fmt::format("{}:{}: label column {} must be B, U or A, found '{}'", path, line,
                              column, excerpt(field)));
}

void check_some_label_valid(const std::vector<uint8_t>& mask, const LabelOptions& options,
                            const std::string& path, int64_t samples) {
  if (!options.require_valid ||
      std::any_of(mask.begin(), mask.end(), [](uint8_t m) { return m != 0; })) {
    return;
  }
  throw DataError(fmt::format(
      "every label in '{}' is missing ({} samples, {} labels, all '.', NA or nan): there is "
      "nothing to train or evaluate on",
      path, samples, mask.size()));
}

const char* label_kind_name(LabelKind kind) {
  return kind == LabelKind::kBinary ? "binary" : "real";
}

}  // namespace strand::data
