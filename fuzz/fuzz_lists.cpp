// libFuzzer target: the lists and regions flags take, from the same text: parse_region() (and
// tile_region() on what it accepts) against a fixed genome, parse_column_list() and
// parse_name_list().
//
// Expected: DataError. Findings: crashes, sanitizer reports, other exception types, and for
// accepted text: a region off its contig or empty, tiles outside the region or not every `step`
// bases, columns out of range or repeated, names that are empty, repeated, hold a tab or line
// break, or do not join back into the text.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/intervals/scoring_windows.h"
#include "data/list_syntax.h"
#include "fmt/format.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace strand;
using fuzz::finding;

const std::vector<data::Contig>& genome() {
  static const std::vector<data::Contig> contigs = {
      {"chr1", 1000}, {"chr2", 50}, {"chrUn:x", 40}, {"1", 30}};
  return contigs;
}

constexpr int64_t kWindow = 10;
constexpr int64_t kStep = 3;

void check_region(const data::Region& region) {
  int64_t length = -1;
  for (const data::Contig& c : genome()) {
    if (c.name == region.contig) length = c.length;
  }
  if (length < 0) finding(fmt::format("region on unknown contig '{}'", region.contig));
  if (region.start < 0 || region.start >= region.end || region.end > length) {
    finding(fmt::format("region [{}, {}) accepted on {} of length {}", region.start, region.end,
                        region.contig, length));
  }
  data::IntervalSet tiles;
  if (!fuzz::parses<data::DataError>("tile_region",
                                     [&] { data::tile_region(region, kWindow, kStep, tiles); })) {
    if (region.end - region.start >= kWindow) finding("a region of one window or more refused");
    return;
  }
  const int64_t expected = (region.end - region.start - kWindow) / kStep + 1;
  if (tiles.size() != expected) {
    finding(fmt::format("{} tiles for [{}, {}), expected {}", tiles.size(), region.start,
                        region.end, expected));
  }
  for (int64_t i = 0; i < tiles.size(); ++i) {
    const data::Interval& t = tiles.intervals[static_cast<size_t>(i)];
    if (t.start != region.start + i * kStep || t.end != t.start + kWindow || t.end > region.end) {
      finding(fmt::format("tile {} is [{}, {})", i, t.start, t.end));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  data::Region region;
  if (fuzz::parses<data::DataError>("parse_region",
                                    [&] { region = data::parse_region(text, genome()); })) {
    check_region(region);
  }
  std::vector<int> columns;
  if (fuzz::parses<data::DataError>("parse_column_list",
                                    [&] { columns = data::parse_column_list(text, "x", 4); })) {
    std::set<int> seen;
    for (const int c : columns) {
      if (c < 4 || c > data::kMaxColumn) finding(fmt::format("column {} accepted", c));
      if (!seen.insert(c).second) finding(fmt::format("column {} accepted twice", c));
    }
    if (columns.empty()) finding("an empty column list accepted");
  }
  std::vector<std::string> names;
  if (fuzz::parses<data::DataError>("parse_name_list",
                                    [&] { names = data::parse_name_list(text, "x"); })) {
    std::set<std::string> seen;
    for (const std::string& name : names) {
      if (name.empty() || name.find_first_of("\t\n\r") != std::string::npos) {
        finding(fmt::format("name '{}' accepted", name));
      }
      if (!seen.insert(name).second) finding(fmt::format("name '{}' accepted twice", name));
    }
    if (fmt::format("{}", fmt::join(names, ",")) != text) finding("names do not join to the text");
  }
  return 0;
}
