// Windows to score without intervals: samtools-style regions, tiles, one window per record.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "data/data_error.h"
#include "data/intervals/scoring_windows.h"
#include "data/test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

const std::vector<Contig> kContigs = {{"chr1", 1000}, {"chrUn:x", 50}};

}  // namespace

TEST_CASE("regions: samtools syntax, 1-based inclusive, to 0-based half open") {
  const Region whole = parse_region("chr1", kContigs);
  CHECK(whole.start == 0);
  CHECK(whole.end == 1000);
  const Region some = parse_region("chr1:1-100", kContigs);
  CHECK(some.start == 0);
  CHECK(some.end == 100);
  const Region commas = parse_region("chr1:101-1,000", kContigs);
  CHECK(commas.start == 100);
  CHECK(commas.end == 1000);
  const Region to_end = parse_region("chr1:900", kContigs);
  CHECK(to_end.start == 899);
  CHECK(to_end.end == 1000);
  CHECK(parse_region("chrUn:x", kContigs).end == 50);  // a whole name with ':' is that contig
  CHECK(parse_region("chrUn:x:2-3", kContigs).start == 1);
  CHECK(error_of([] {
          parse_region("chr2:1-10", kContigs);
        }).find("contig 'chr2' is not in the FASTA") != std::string::npos);
  CHECK(error_of([] {
          parse_region("chr1:0-10", kContigs);
        }).find("is not a range of positive positions") != std::string::npos);
  CHECK(error_of([] { parse_region("chr1:20-10", kContigs); }).find("begin 20 is after end 10") !=
        std::string::npos);
  CHECK(error_of([] {
          parse_region("chr1:1-1001", kContigs);
        }).find("end 1001 is past the end of contig 'chr1' (length 1000)") != std::string::npos);
  CHECK(error_of([] { parse_region("chr1:x-y", kContigs); }).find("expected CONTIG") !=
        std::string::npos);
}

TEST_CASE("tiles: windows every step bases that end inside the region") {
  IntervalSet set;
  tile_region({"chr1", 100, 400}, 100, 50, set);
  REQUIRE(set.size() == 5);  // starts 100, 150, 200, 250, 300
  CHECK(set.intervals[0].start == 100);
  CHECK(set.intervals[4].start == 300);
  CHECK(set.intervals[4].end == 400);
  CHECK(error_of([&] {
          tile_region({"chr1", 0, 50}, 100, 50, set);
        }).find("is shorter than one 100-base window") != std::string::npos);
  CHECK(error_of([&] {
          tile_region({"chr1", 0, 500}, 100, 150, set);
        }).find("leave gaps") != std::string::npos);
  CHECK(error_of([&] {
          tile_region({"chr1", 0, 500}, 100, 0, set);
        }).find("at least 1 base") != std::string::npos);
}

TEST_CASE("record windows: exact lengths, centred longer records, shorter ones refused") {
  TempDir dir;
  const std::string fa = dir.write("r.fa", ">a\nACGTACGTAC\n>b\nACGTACGTACGT\n>c\nACGTAC\n");
  const FastaReader reader(fa);
  const std::string shorter = error_of([&] { record_windows(reader, 10, true); });
  CHECK(shorter.find("record 'c' has 6 bases but the model takes 10") != std::string::npos);
  const FastaReader two(dir.write("s.fa", ">a\nACGTACGTAC\n>b\nACGTACGTACGT\n"));
  CHECK(error_of([&] {
          record_windows(two, 10, false);
        }).find("record 'b' has 12 bases but the model takes 10; centring") != std::string::npos);
  const IntervalSet set = record_windows(two, 10, true);
  REQUIRE(set.size() == 2);
  CHECK(set.intervals[0].start == 0);
  CHECK(set.intervals[1].start == 1);
  CHECK(set.intervals[1].end == 11);
}
