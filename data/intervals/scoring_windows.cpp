// Region parsing, tiling and per-record windows for prediction without intervals.
#include "data/intervals/scoring_windows.h"

#include <algorithm>
#include <optional>

#include "data/data_error.h"
#include "data/text_fields.h"
#include "data/window.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

constexpr const char* kRegionForms =
    "expected CONTIG, CONTIG:BEGIN or CONTIG:BEGIN-END (1-based, "
    "inclusive, as samtools writes regions)";

const Contig* find_contig(std::string_view name, const std::vector<Contig>& contigs) {
  const auto it = std::find_if(contigs.begin(), contigs.end(),
                               [name](const Contig& c) { return c.name == name; });
  return it == contigs.end() ? nullptr : &*it;
}

// A 1-based position: digits, commas ignored.
std::optional<int64_t> position(std::string_view text) {
  std::string digits;
  for (const char c : text) {
    if (c != ',') digits += c;
  }
  const auto value = parse_int(digits);
  if (!value || *value < 1 || digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

Region parse_region(std::string_view text, const std::vector<Contig>& contigs) {
  if (const Contig* whole = find_contig(text, contigs)) return {whole->name, 0, whole->length};
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    throw DataError(
        fmt::format("region '{}': no contig of that name; {}", excerpt(text), kRegionForms));
  }
  const std::string_view name = text.substr(0, colon);
  const Contig* contig = find_contig(name, contigs);
  if (contig == nullptr) {
    throw DataError(
        fmt::format("region '{}': contig '{}' is not in the FASTA", excerpt(text), excerpt(name)));
  }
  const std::string_view range = text.substr(colon + 1);
  const size_t dash = range.find('-');
  const auto begin = position(range.substr(0, dash));
  const auto end = dash == std::string_view::npos ? std::optional<int64_t>(contig->length)
                                                  : position(range.substr(dash + 1));
  if (!begin || !end) {
    throw DataError(fmt::format("region '{}': '{}' is not a range of positive positions; {}",
                                excerpt(text), excerpt(range), kRegionForms));
  }
  if (*begin > *end) {
    throw DataError(
        fmt::format("region '{}': begin {} is after end {}", excerpt(text), *begin, *end));
  }
  if (*end > contig->length) {
    throw DataError(fmt::format("region '{}': end {} is past the end of contig '{}' (length {})",
                                excerpt(text), *end, contig->name, contig->length));
  }
  return {contig->name, *begin - 1, *end};
}

void tile_region(const Region& region, int64_t window, int64_t step, IntervalSet& set) {
  if (set.num_targets() != 0) throw DataError("tile_region: the set must be unlabelled");
  if (window < 1 || step < 1) {
    throw DataError(
        fmt::format("tiling needs a window ({}) and a step ({}) of at least 1 base", window, step));
  }
  if (step > window) {
    throw DataError(fmt::format(
        "a step of {} bases is longer than the {}-base window: the tiles would leave gaps", step,
        window));
  }
  if (region.end - region.start < window) {
    throw DataError(fmt::format("region {}:{}-{} ({} bases) is shorter than one {}-base window",
                                region.contig, region.start + 1, region.end,
                                region.end - region.start, window));
  }
  for (int64_t s = region.start; s + window <= region.end; s += step) {
    Interval iv;
    iv.contig = region.contig;
    iv.start = s;
    iv.end = s + window;
    set.intervals.push_back(std::move(iv));
  }
  set.stats.intervals = set.size();
}

IntervalSet record_windows(const FastaReader& reader, int64_t window, bool centre) {
  if (window < 1) {
    throw DataError(fmt::format("record windows need a window of at least 1 base, got {}", window));
  }
  IntervalSet set;
  set.path = reader.path();
  for (const Contig& record : reader.contigs()) {
    if (record.length < window || (record.length > window && !centre)) {
      throw DataError(fmt::format(
          "{}: record '{}' has {} bases but the model takes {}{}", reader.path(),
          excerpt(record.name), record.length, window,
          record.length > window ? "; centring (strand predict --center) scores its central window"
                                 : " (shorter records are not padded with N)"));
    }
    Interval iv;
    iv.contig = record.name;
    iv.start = window_start(record.length / 2, window, 0, record.length);
    iv.end = iv.start + window;
    set.intervals.push_back(std::move(iv));
  }
  set.stats.intervals = set.size();
  return set;
}

}  // namespace strand::data
