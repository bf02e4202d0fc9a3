// Tests for BigWigReader and BigWigWriter: values written come back base for base (spans,
// per-base runs, many blocks), missing data and NaN read as 0, bad files and bad writes are
// errors naming the file, and a writer publishes atomically or not at all.
#include <bigWig.h>
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/signals/bigwig.h"
#include "data/test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

std::vector<float> read_range(const BigWigReader& reader, const std::string& contig, int64_t start,
                              int64_t end) {
  std::vector<float> out(static_cast<size_t>(end - start), -1.0F);
  reader.read(contig, start, end, out.data());
  return out;
}

// Files in `dir` other than `keep`: temporary files a writer must not leave behind.
std::vector<std::string> other_files(const std::string& dir, const std::string& keep) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name != keep) names.push_back(name);
  }
  return names;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("bigWig: per-base values and spans written come back base for base") {
  TempDir dir;
  const std::string path = dir.file("t.bw");
  // chr1: per-base counts with runs and zeros, long enough for many libBigWig blocks.
  std::vector<float> chr1(50000, 0.0F);
  for (size_t i = 0; i < chr1.size(); ++i) {
    if (i % 7 < 3) chr1[i] = static_cast<float>((i / 7) % 5);
  }
  {
    BigWigWriter writer(path, {{"chr1", 50000}, {"chr2", 3000}, {"chrEmpty", 800}});
    writer.add_values("chr1", 0, chr1);
    const std::vector<BigWigSpan> spans = {
        {10, 20, 1.5F}, {20, 25, 1.5F}, {100, 101, -2.0F}, {2990, 3000, 7.0F}};
    writer.add_spans("chr2", spans);
    CHECK_FALSE(std::filesystem::exists(path));  // nothing is published before finish()
    writer.finish();
  }
  CHECK(other_files(dir.path(), "t.bw").empty());
  const BigWigReader reader(path);
  REQUIRE(reader.contigs().size() == 3);
  CHECK(reader.contigs()[0].name == "chr1");
  CHECK(reader.contig_length("chr2") == 3000);
  CHECK(reader.contig_length("chrEmpty") == 800);
  CHECK(reader.contig_length("chr9") == -1);

  CHECK(read_range(reader, "chr1", 0, 50000) == chr1);
  for (const auto& [start, end] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1}, {5, 6}, {123, 4567}, {49990, 50000}, {20000, 20000}}) {
    CAPTURE(start);
    const std::vector<float> expected(chr1.begin() + start, chr1.begin() + end);
    CHECK(read_range(reader, "chr1", start, end) == expected);
  }
  std::vector<float> chr2(3000, 0.0F);
  std::fill(chr2.begin() + 10, chr2.begin() + 25, 1.5F);
  chr2[100] = -2.0F;
  std::fill(chr2.begin() + 2990, chr2.end(), 7.0F);
  CHECK(read_range(reader, "chr2", 0, 3000) == chr2);
  CHECK(read_range(reader, "chr2", 15, 22) == std::vector<float>(7, 1.5F));
  CHECK(read_range(reader, "chrEmpty", 0, 800) == std::vector<float>(800, 0.0F));

  // A clone is an independent handle on the same file.
  const BigWigReader copy = reader.clone();
  CHECK(read_range(copy, "chr2", 95, 105) == read_range(reader, "chr2", 95, 105));
}

TEST_CASE("bigWig writer: spans past its in-memory batch, contigs out of list order") {
  // More spans than the writer keeps in memory (2^16) go through its spill file; a run that
  // continues across a batch's end still merges; contigs come in another order than listed.
  TempDir dir;
  const std::string path = dir.file("long.bw");
  constexpr int64_t kBases = 300000;
  std::vector<float> b(kBases, 0.0F);
  for (int64_t i = 0; i < kBases; ++i) {
    b[static_cast<size_t>(i)] = static_cast<float>(i % 3);  // two spans of every three bases
  }
  std::fill(b.begin() + 131070, b.begin() + 131090, 5.0F);
  {
    BigWigWriter writer(path, {{"a", 1000}, {"b", kBases}, {"c", 50}});
    writer.add_values("c", 10, std::vector<float>(5, 2.0F));
    for (int64_t at = 0; at < kBases; at += 7001) {
      const int64_t end = std::min(kBases, at + 7001);
      writer.add_values("b", at, std::span<const float>(b.data() + at, b.data() + end));
    }
    writer.add_values("a", 999, std::vector<float>{4.0F});
    writer.finish();
  }
  const BigWigReader reader(path);
  CHECK(reader.contigs()[0].name == "a");
  CHECK(read_range(reader, "b", 0, kBases) == b);
  CHECK(read_range(reader, "a", 990, 1000) == std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, 0, 4.0F});
  CHECK(read_range(reader, "c", 9, 16) == std::vector<float>{0, 2, 2, 2, 2, 2, 0});
  CHECK(other_files(dir.path(), "long.bw").empty());
}

TEST_CASE("bigWig: a file without values is valid and reads as zeros") {
  TempDir dir;
  const std::string path = dir.file("empty.bw");
  BigWigWriter writer(path, {{"a", 100}, {"b", 50}});
  writer.add_values("a", 0, std::vector<float>(100, 0.0F));
  writer.finish();
  const BigWigReader reader(path);
  CHECK(read_range(reader, "a", 0, 100) == std::vector<float>(100, 0.0F));
  CHECK(read_range(reader, "b", 0, 50) == std::vector<float>(50, 0.0F));
}

TEST_CASE("bigWig: NaN values and bases without data read as 0") {
  TempDir dir;
  const std::string path = dir.file("nan.bw");
  // BigWigWriter refuses NaN, so this file is written with libBigWig directly, as other tools
  // (which write NaN for "no value") would.
  bigWigFile_t* file = bwOpen(path.c_str(), nullptr, "w");
  REQUIRE(file != nullptr);
  REQUIRE(bwCreateHdr(file, 10) == 0);
  const char* names[] = {"chr1"};
  const uint32_t lengths[] = {1000};
  file->cl = bwCreateChromList(names, lengths, 1);
  REQUIRE(bwWriteHdr(file) == 0);
  const char* chroms[] = {"chr1", "chr1", "chr1"};
  const uint32_t starts[] = {10, 20, 30};
  const uint32_t ends[] = {15, 25, 35};
  const float values[] = {2.0F, std::nanf(""), 3.0F};
  REQUIRE(bwAddIntervals(file, chroms, starts, ends, values, 3) == 0);
  bwClose(file);

  const BigWigReader reader(path);
  std::vector<float> expected(40, 0.0F);
  std::fill(expected.begin() + 10, expected.begin() + 15, 2.0F);
  std::fill(expected.begin() + 30, expected.begin() + 35, 3.0F);
  CHECK(read_range(reader, "chr1", 0, 40) == expected);
}

TEST_CASE("bigWig: reading a missing, foreign or damaged file is an error naming it") {
  TempDir dir;
  CHECK(error_of([&] {
          BigWigReader r(dir.file("missing.bw"));
        }).find("missing.bw' does not exist") != std::string::npos);
  const std::string text = dir.write("text.bw", "chr1\t0\t10\t1\n");
  CHECK(error_of([&] { BigWigReader r(text); }).find("text.bw' is not a bigWig file") !=
        std::string::npos);
  // A real bigWig cut short: the magic number is there, the rest is not.
  const std::string good = dir.file("good.bw");
  BigWigWriter writer(good, {{"chr1", 100000}});
  std::vector<float> values(100000, 1.0F);
  for (size_t i = 0; i < values.size(); i += 3) values[i] = 2.0F;
  writer.add_values("chr1", 0, values);
  writer.finish();
  const std::string bytes = read_text(good);
  const std::string cut = dir.write("cut.bw", bytes.substr(0, 200));
  CHECK(error_of([&] { BigWigReader r(cut); }).find("cut.bw") != std::string::npos);

  const BigWigReader reader(good);
  std::vector<float> out(10);
  CHECK(error_of([&] { reader.read("chr2", 0, 10, out.data()); }) ==
        "bigWig '" + good + "' has no contig 'chr2'");
  CHECK(error_of([&] {
          reader.read("chr1", 99995, 100005, out.data());
        }).find("range chr1:99995-100005 is outside the contig (100000 bases)") !=
        std::string::npos);
}

TEST_CASE("bigWig writer: bad values and orders are errors, and nothing is published") {
  TempDir dir;
  const std::string path = dir.file("w.bw");
  const auto writer = [&] {
    return std::make_unique<BigWigWriter>(path, std::vector<Contig>{{"a", 100}, {"b", 100}});
  };
  {
    auto w = writer();
    const std::vector<BigWigSpan> first = {{10, 20, 1.0F}};
    w->add_spans("b", first);
    const std::vector<BigWigSpan> overlapping = {{15, 30, 1.0F}};
    CHECK(error_of([&] { w->add_spans("b", overlapping); }).find("overlaps") != std::string::npos);
    const std::vector<BigWigSpan> outside = {{90, 101, 1.0F}};
    CHECK(error_of([&] { w->add_spans("b", outside); }).find("is invalid") != std::string::npos);
    const std::vector<BigWigSpan> infinite = {{50, 60, INFINITY}};
    CHECK(error_of([&] { w->add_spans("b", infinite); }).find("is invalid") != std::string::npos);
    // Contigs may come in any order, each contig's values together.
    w->add_spans("a", first);
    const std::vector<BigWigSpan> later = {{60, 70, 1.0F}};
    CHECK(error_of([&] { w->add_spans("b", later); }).find("added again after those of 'a'") !=
          std::string::npos);
    CHECK(error_of([&] {
            w->add_values("c", 0, std::vector<float>{1.0F});
          }).find("contig 'c' is not in its chromosome list") != std::string::npos);
    // Destroyed without finish(): no file, no temporary file.
  }
  CHECK(other_files(dir.path(), "").empty());
  CHECK(error_of([&] {
          BigWigWriter w(path, {{"a", 100}, {"a", 5}});
        }).find("contig 'a' is listed twice") != std::string::npos);
  CHECK(error_of([&] {
          BigWigWriter w(path, {{"a", 0}});
        }).find("cannot be written") != std::string::npos);
  CHECK(error_of([&] {
          BigWigWriter w(dir.file("no/such/dir/x.bw"), {{"a", 10}});
          w.finish();
        }).find("x.bw") != std::string::npos);
}

TEST_CASE("bigWig writer: finishing replaces an existing file whole") {
  TempDir dir;
  const std::string path = dir.write("r.bw", "old contents");
  BigWigWriter writer(path, {{"x", 10}});
  writer.add_values("x", 2, std::vector<float>{4.0F, 4.0F, 0.0F, 1.0F});
  writer.finish();
  CHECK(other_files(dir.path(), "r.bw").empty());
  const BigWigReader reader(path);
  CHECK(read_range(reader, "x", 0, 10) ==
        std::vector<float>{0.0F, 0.0F, 4.0F, 4.0F, 0.0F, 1.0F, 0.0F, 0.0F, 0.0F, 0.0F});
}
