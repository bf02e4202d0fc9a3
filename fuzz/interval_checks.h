// The driver shared by fuzz_bed, fuzz_narrowpeak and fuzz_dream: reads the input as an
// interval file under every BadIntervalPolicy (and with explicit label columns), checks what
// was accepted, then validates it against a fixed genome and checks that too.
//
// Besides crashes and unexpected exception types, these are findings (silent wrong results):
//   - a data line neither kept nor counted as skipped (e.g. a contig named "track1" taken for
//     a track line); under kError every data line must be kept, in order, with its contig;
//   - an interval with start < 0, start >= end, or a summit outside it;
//   - labels and masks whose sizes are not N x T, a masked label that is not 0, a valid label
//     that is not finite (or not 0/1 for binary labels), or a set with no valid label;
//   - after validation, an interval off its contig, or counts that do not add up.
// A data line is any line that is not blank (spaces and tabs only) and, for BED and
// narrowPeak, does not start with '#' and whose first word is not "track" or "browser"; in a
// DREAM file the first such line is the header.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/data_error.h"
#include "data/intervals/intervals.h"
#include "fmt/format.h"
#include "fuzz/fuzz_support.h"

namespace strand::fuzz {

/// A line that must become an interval (or be counted as skipped).
struct DataLine {
  int64_t line = 0;    ///< 1-based
  std::string contig;  ///< the first tab-separated field
};

/// The data lines of `text` (see the file comment), as std::getline and a CR strip see them.
inline std::vector<DataLine> data_lines(std::string_view text, data::IntervalFormat format) {
  std::vector<DataLine> out;
  bool header_seen = format != data::IntervalFormat::kDreamTsv;
  int64_t number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    if (format != data::IntervalFormat::kDreamTsv) {
      const std::string_view word = line.substr(0, line.find_first_of(" \t"));
      if (line.front() == '#' || word == "track" || word == "browser") continue;
    }
    out.push_back({number, std::string(line.substr(0, line.find('\t')))});
  }
  return out;
}

/// Checks one interval (as read, or after validation).
inline void check_interval(const data::Interval& iv, const std::string& what) {
  if (iv.start < 0 || iv.start >= iv.end) {
    finding(fmt::format("{}: line {}: interval [{}, {}) kept", what, iv.line, iv.start, iv.end));
  }
  if (iv.summit != -1 && (iv.summit < iv.start || iv.summit >= iv.end)) {
    finding(fmt::format("{}: line {}: summit {} outside [{}, {})", what, iv.line, iv.summit,
                        iv.start, iv.end));
  }
}

/// Checks the shape and values of the labels of an accepted set: a valid label is finite, and 0
/// or 1 when `binary` (data/labels.h); at least one label is valid (LabelOptions::require_valid).
inline void check_labels(const data::IntervalSet& set, bool binary, const std::string& what) {
  const auto n = static_cast<size_t>(set.size());
  const auto t = static_cast<size_t>(set.num_targets());
  if (t == 0) finding(what + ": no label columns");
  if (set.labels.size() != n * t || set.label_mask.size() != n * t) {
    finding(fmt::format("{}: {} labels and {} mask bytes for {} intervals x {} targets", what,
                        set.labels.size(), set.label_mask.size(), n, t));
  }
  for (size_t i = 0; i < set.labels.size(); ++i) {
    const auto line = set.intervals[i / t].line;
    if (set.label_mask[i] > 1)
      finding(fmt::format("{}: line {}: mask byte {}", what, line, set.label_mask[i]));
    if (set.label_mask[i] == 0 && set.labels[i] != 0.0F) {
      finding(fmt::format("{}: line {}: masked label stored as {}", what, line, set.labels[i]));
    }
    if (set.label_mask[i] == 1 && !std::isfinite(set.labels[i])) {
      finding(fmt::format("{}: line {}: {} taken as a valid label", what, line, set.labels[i]));
    }
    if (binary && set.label_mask[i] == 1 && set.labels[i] != 0.0F && set.labels[i] != 1.0F) {
      finding(fmt::format("{}: line {}: {} taken as a binary label", what, line, set.labels[i]));
    }
  }
  if (std::find(set.label_mask.begin(), set.label_mask.end(), 1) == set.label_mask.end()) {
    finding(what + ": accepted with every label missing");
  }
}

/// The genome the intervals are validated against.
inline const std::vector<data::Contig>& fuzz_contigs() {
  static const std::vector<data::Contig> contigs = {
      {"chr1", 1000}, {"chr2", 50}, {"chrX", 10}, {"track1", 100}, {"browserX", 20}};
  return contigs;
}

/// Reads `path` (whose bytes are `text`) with `options` and checks the result; then validates
/// a copy against fuzz_contigs() and checks that.
inline void read_and_check(const std::string& path, std::string_view text,
                           const data::IntervalReadOptions& options, const std::string& what) {
  const std::vector<DataLine> expected = data_lines(text, options.format);
  data::IntervalSet set;
  if (!parses<data::DataError>(what.c_str(), [&] { set = data::read_intervals(path, options); })) {
    return;
  }
  if (set.size() == 0) finding(what + ": accepted with no intervals");
  if (set.size() + set.stats.skipped != static_cast<int64_t>(expected.size())) {
    finding(
        fmt::format("{}: {} data lines but {} intervals kept and {} skipped (lines lost "
                    "silently)",
                    what, expected.size(), set.size(), set.stats.skipped));
  }
  // Kept intervals are data lines, in order, each with its own contig.
  size_t next = 0;
  for (const data::Interval& iv : set.intervals) {
    while (next < expected.size() && expected[next].line != iv.line) {
      if (options.policy == data::BadIntervalPolicy::kError) {
        finding(fmt::format("{}: line {} (contig '{}') dropped under kError", what,
                            expected[next].line, expected[next].contig));
      }
      ++next;
    }
    if (next == expected.size()) {
      finding(fmt::format("{}: interval from line {} which is not a data line", what, iv.line));
    }
    if (iv.contig != expected[next].contig) {
      finding(fmt::format("{}: line {}: contig '{}' read as '{}'", what, iv.line,
                          expected[next].contig, iv.contig));
    }
    ++next;
    check_interval(iv, what);
  }
  const bool binary = options.format == data::IntervalFormat::kDreamTsv ||
                      options.labels.kind == data::LabelKind::kBinary;
  check_labels(set, binary, what);
  int64_t masked = 0;
  for (const uint8_t m : set.label_mask) masked += m == 0 ? 1 : 0;
  if (masked != set.stats.masked_labels || set.stats.intervals != set.size()) {
    finding(fmt::format("{}: stats say {} intervals and {} masked labels, found {} and {}", what,
                        set.stats.intervals, set.stats.masked_labels, set.size(), masked));
  }

  const std::string validated = what + " + validate_intervals";
  const int64_t before = set.size();
  const int64_t skipped_before = set.stats.skipped;
  const bool valid = parses<data::DataError>(validated.c_str(), [&] {
    data::validate_intervals(set, fuzz_contigs(), "fuzz.fa", options.policy, options.labels);
  });
  if (!valid) return;
  if (set.size() + (set.stats.skipped - skipped_before) != before) {
    finding(fmt::format("{}: {} intervals became {} with {} skipped", validated, before, set.size(),
                        set.stats.skipped - skipped_before));
  }
  if (options.policy == data::BadIntervalPolicy::kError && set.size() != before) {
    finding(validated + ": intervals dropped under kError");
  }
  for (const data::Interval& iv : set.intervals) {
    check_interval(iv, validated);
    bool on_contig = false;
    for (const data::Contig& c : fuzz_contigs()) {
      on_contig = on_contig || (c.name == iv.contig && iv.end <= c.length);
    }
    if (!on_contig) {
      finding(fmt::format("{}: line {}: [{}, {}) on '{}' kept off the genome", validated, iv.line,
                          iv.start, iv.end, iv.contig));
    }
  }
  check_labels(set, binary, validated);
}

/// The whole target: the input under kError, kSkip and kClip with the default label columns,
/// then under kError with label columns 5 and 4, then with binary labels.
inline int fuzz_interval_file(const uint8_t* data, size_t size, data::IntervalFormat format,
                              const char* name) {
  const std::string_view text = as_text(data, size);
  const auto& dir = ScratchDir::get().fresh();
  const std::string path = (dir / "input.txt").string();
  write_file(path, text);
  const std::pair<data::BadIntervalPolicy, const char*> policies[] = {
      {data::BadIntervalPolicy::kError, "kError"},
      {data::BadIntervalPolicy::kSkip, "kSkip"},
      {data::BadIntervalPolicy::kClip, "kClip"}};
  for (const auto& [policy, policy_name] : policies) {
    data::IntervalReadOptions options;
    options.format = format;
    options.policy = policy;
    read_and_check(path, text, options, fmt::format("read_intervals({}, {})", name, policy_name));
  }
  data::IntervalReadOptions columns;
  columns.format = format;
  columns.label_columns = {5, 4};
  read_and_check(path, text, columns, fmt::format("read_intervals({}, columns 5,4)", name));
  data::IntervalReadOptions binary;  // what strand train asks for (its metrics are binary)
  binary.format = format;
  binary.labels.kind = data::LabelKind::kBinary;
  read_and_check(path, text, binary, fmt::format("read_intervals({}, binary labels)", name));
  return 0;
}

}  // namespace strand::fuzz
