// libFuzzer target: a chrombpnet-style fold file ({"train": [...], "valid": [...], "test":
// [...]}) read by read_fold_file() and applied by split_by_fold() to fixed intervals on a fixed
// genome.
//
// Expected: DataError. Findings: crashes, sanitizer reports, other exception types, and for an
// accepted file: JSON nested deeper than io::kMaxJsonNesting or a NUL byte, an empty valid or
// test list, an empty chromosome name, a chromosome listed twice; for an accepted split: an
// interval not sent to the list naming its chromosome (or not unassigned when none does), or a
// part left empty.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/intervals.h"
#include "data/splits.h"
#include "fmt/format.h"
#include "fuzz/fuzz_support.h"
#include "io/json_limits.h"

namespace {

using namespace strand;
using fuzz::finding;

const std::vector<data::Contig>& genome() {
  static const std::vector<data::Contig> contigs = {
      {"chr1", 1000}, {"chr2", 500}, {"chr8", 800}, {"chrX", 300}};
  return contigs;
}

// Two intervals on each of chr1, chr2 and chr8; none on chrX.
const data::IntervalSet& intervals() {
  static const data::IntervalSet set = [] {
    data::IntervalSet s;
    s.path = "fixed.bed";
    for (const char* chrom : {"chr1", "chr2", "chr8"}) {
      for (int64_t i = 0; i < 2; ++i) {
        s.intervals.push_back({chrom, i * 100, i * 100 + 50, -1, i + 1});
      }
    }
    return s;
  }();
  return set;
}

void check_fold(const data::ChromosomeFold& fold) {
  if (fold.valid.empty() || fold.test.empty()) finding("accepted with an empty valid or test list");
  std::set<std::string> seen;
  for (const auto* list : {&fold.train, &fold.valid, &fold.test}) {
    for (const std::string& name : *list) {
      if (name.empty()) finding("accepted an empty chromosome name");
      if (!seen.insert(name).second) finding(fmt::format("chromosome '{}' accepted twice", name));
    }
  }
}

void check_split(const data::ChromosomeFold& fold, const std::vector<data::SplitPart>& parts) {
  std::map<std::string, data::SplitPart> part_of;
  for (const std::string& name : fold.train) part_of[name] = data::SplitPart::kTrain;
  for (const std::string& name : fold.valid) part_of[name] = data::SplitPart::kValidation;
  for (const std::string& name : fold.test) part_of[name] = data::SplitPart::kTest;
  const auto& all = intervals().intervals;
  if (parts.size() != all.size()) finding("split: one part per interval expected");
  int per_part[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < all.size(); ++i) {
    const auto it = part_of.find(all[i].contig);
    const data::SplitPart expected =
        it == part_of.end() ? data::SplitPart::kUnassigned : it->second;
    if (parts[i] != expected) {
      finding(fmt::format("split: interval on {} sent to {}, expected {}", all[i].contig,
                          data::split_part_name(parts[i]), data::split_part_name(expected)));
    }
    ++per_part[static_cast<int>(parts[i])];
  }
  for (int p = 0; p < 3; ++p) {
    if (per_part[p] == 0) finding("split: accepted with an empty part");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto dir = fuzz::ScratchDir::get().fresh();
  const std::string path = (dir / "fold.json").string();
  fuzz::write_file(path, fuzz::as_text(data, size));
  data::ChromosomeFold fold;
  if (!fuzz::parses<data::DataError>("read_fold_file",
                                     [&] { fold = data::read_fold_file(path); })) {
    return 0;
  }
  if (fuzz::json_nesting(fuzz::as_text(data, size)) > io::kMaxJsonNesting) {
    finding("read_fold_file accepted JSON nested deeper than io::kMaxJsonNesting");
  }
  if (io::nul_byte(fuzz::as_text(data, size))) finding("read_fold_file accepted a NUL byte");
  check_fold(fold);
  std::vector<data::SplitPart> parts;
  if (fuzz::parses<data::DataError>("split_by_fold", [&] {
        parts = data::split_by_fold(intervals(), fold, path, genome(), "fixed.fa");
      })) {
    check_split(fold, parts);
  }
  return 0;
}
