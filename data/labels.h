// Label fields of interval and record files: what counts as missing, and what a valid label is
// for the loss that will consume it (checked when the file is read, naming file and line).
//
// Policy (docs/data_formats.md):
//   missing  ".", "NA", "NaN", "-NaN", "+NaN" in any case -> label 0.0 with label_mask 0
//   kReal    any other field must be a finite number ("inf", "1e40", "2x" are errors)
//   kBinary  any other field must be exactly 0 or 1 ("0.0", "1e0" count; 2, -1, 0.5 are errors)
//   a file whose every label is missing is an error unless LabelOptions::require_valid is off
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strand::data {

/// What the labels must be, from the loss that will consume them.
enum class LabelKind {
  kReal,    ///< any finite number (regression losses, e.g. mse)
  kBinary,  ///< 0 or 1 (binary cross-entropy)
};

/// How label fields are checked when a file is read.
struct LabelOptions {
  LabelKind kind = LabelKind::kReal;  ///< what a valid label is
  /// A file in which every label is missing is an error (training on it would "succeed" with
  /// loss 0). Off for prediction, where labels are only copied to the output.
  bool require_valid = true;
};

/// One parsed label: the value (0.0 when missing) and whether it is valid (mask 1).
struct Label {
  float value = 0.0F;  ///< the label, 0.0 when missing
  bool valid = true;   ///< false for a missing label (label_mask 0)
};

/// True for the missing markers ".", "NA", "NaN", "-NaN", "+NaN" (any case).
bool is_missing_label(std::string_view field);

/// True for a field that names a task rather than holding a label: an ASCII letter or '_'
/// first, and neither a missing marker (NA, nan) nor a number (inf). Header lines (label TSV,
/// BED '#' headers) are recognised by their label fields all being task names.
bool is_target_name(std::string_view field);

/// Parses a numeric label field of `path` at `line`, 1-based `column`. Throws DataError naming
/// file, line, column, the field and what `kind` allows.
Label parse_label(std::string_view field, LabelKind kind, const std::string& path, int64_t line,
                  int column);

/// Parses an ENCODE-DREAM label: B (bound) -> 1, U (unbound) -> 0, A (ambiguous) -> missing.
Label parse_dream_label(std::string_view field, const std::string& path, int64_t line, int column);

/// Throws DataError when `options.require_valid` and no entry of `mask` (N, T) is 1: every
/// label of `path` (`samples` samples) is missing.
void check_some_label_valid(const std::vector<uint8_t>& mask, const LabelOptions& options,
                            const std::string& path, int64_t samples);

/// "real" or "binary".
const char* label_kind_name(LabelKind kind);

}  // namespace strand::data
